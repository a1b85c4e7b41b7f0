"""Text-line segmentation kernels (lines track, SPEC section 4; seeds/lines-track-evaluation.txt).

Pure numpy/scipy: label maps in, numbers out. Every measure of a page follows from one
overlap table between ground-truth lines and predicted lines, computed by a single
bincount over paired labels (as scikit-image's contingency table), never from a mask
per pair of lines.
"""

import numpy as np
from scipy import ndimage, sparse
from scipy.sparse import csgraph

METRICS = ("line_iu", "pixel_iu", "dr", "ra", "fm")


def structure(connectivity):
    """The scipy.ndimage structuring element of 4- or 8-connectivity."""
    return ndimage.generate_binary_structure(2, 2 if connectivity == 8 else 1)


def label_mask(mask, connectivity=8):
    """Connected components of a boolean mask: (labels int32, count), labels in raster order."""
    labels, count = ndimage.label(mask, structure=structure(connectivity))
    return labels, int(count)


def _neighbour_slices(connectivity):
    """Pairs of slices (a, b) such that image[a] and image[b] are neighbouring pixels."""
    full, head, tail = slice(None), slice(None, -1), slice(1, None)
    pairs = [((full, head), (full, tail)), ((head, full), (tail, full))]
    if connectivity == 8:
        pairs += [((head, head), (tail, tail)), ((head, tail), (tail, head))]
    return pairs


def _offsets(connectivity):
    """(dy, dx) of the neighbours of a pixel."""
    out = [(0, 1), (0, -1), (1, 0), (-1, 0)]
    if connectivity == 8:
        out += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    return out


def label_colour_classes(colours, connectivity=8):
    """Connected components of each colour class of an instance map.

    colours: integer array, 0 the background, any other value a colour class.
    Returns (labels int32, count). The numbering depends on where the colour classes are,
    not on the colour values (a recoloured map gets the same labels), so the matching's
    tie order does not either. Touching lines of different
    colours stay apart; a binary mask is split into its blobs.

    Without a loop over colours: pixels with a neighbour of another colour are the
    boundary; the rest (the interior) is labelled once, and boundary pixels are joined to
    their equal-colour neighbours by a small graph (nodes: interior components and
    boundary pixels) solved by scipy.sparse.csgraph.connected_components.
    """
    foreground = colours != 0
    boundary = np.zeros(colours.shape, dtype=bool)
    for a, b in _neighbour_slices(connectivity):
        differ = colours[a] != colours[b]
        differ &= foreground[a]
        differ &= foreground[b]
        boundary[a] |= differ
        boundary[b] |= differ
    if not boundary.any():
        return label_mask(foreground, connectivity)
    node, count = label_mask(foreground & ~boundary, connectivity)
    height, width = colours.shape
    where = np.flatnonzero(boundary)
    # Nodes: 0 background, 1..count interior components, then one per boundary pixel (raster order).
    node.flat[where] = count + 1 + np.arange(where.size, dtype=node.dtype)
    flat_node, flat_colours = node.ravel(), colours.ravel()
    own = flat_colours[where]
    row, col = np.divmod(where, width)
    sources, targets = [], []
    for dy, dx in _offsets(connectivity):
        r, c = row + dy, col + dx
        inside = (r >= 0) & (r < height) & (c >= 0) & (c < width)
        neighbour = (r * width + c)[inside]
        same = flat_colours[neighbour] == own[inside]  # the background never equals a colour
        sources.append(flat_node[where[inside][same]])
        targets.append(flat_node[neighbour[same]])
    sources, targets = np.concatenate(sources), np.concatenate(targets)
    nodes = count + 1 + where.size
    graph = sparse.coo_matrix((np.ones(sources.size, dtype=np.int8), (sources, targets)), shape=(nodes, nodes))
    parts, part_of = csgraph.connected_components(graph, directed=False)
    # Number the components by their smallest node: interior components in raster order of
    # their first interior pixel, then components made of boundary pixels only. The boundary
    # depends on which pixels share a colour, not on the colour values, so neither does this.
    smallest = np.full(parts, nodes, dtype=np.int64)
    np.minimum.at(smallest, part_of, np.arange(nodes))
    rank = np.empty(parts, dtype=np.int32)
    rank[np.argsort(smallest, kind="stable")] = np.arange(parts, dtype=np.int32)  # node 0 ranks 0
    return rank[part_of][node], parts - 1


def component_colours(labels, count, colours):
    """The colour of each component 1..count (labels from label_colour_classes)."""
    where = np.flatnonzero(labels)
    out = np.zeros(count + 1, dtype=np.int64)
    out[labels.ravel()[where]] = colours.ravel()[where]
    return out[1:]


def overlap_table(gt_labels, n_gt, pred_labels, n_pred):
    """table[i, j]: pixels of ground-truth label i and predicted label j (0 = background).

    One bincount over the paired labels of every pixel. Row sums are the ground-truth
    areas, column sums the predicted areas.
    """
    paired = gt_labels.astype(np.int64) * (n_pred + 1) + pred_labels
    counts = np.bincount(paired.ravel(), minlength=(n_gt + 1) * (n_pred + 1))
    return counts.reshape(n_gt + 1, n_pred + 1)


def ratio(numerator, denominator):
    """numerator / denominator, with 0/0 = 1 (nothing to find and nothing found is perfect)."""
    if denominator == 0:
        return 1.0 if numerator == 0 else 0.0
    return float(numerator) / float(denominator)


def f_measure(dr, ra):
    """2 DR RA / (DR + RA), 0 when DR = RA = 0."""
    return 0.0 if dr + ra == 0 else 2.0 * dr * ra / (dr + ra)


def match_one_to_one(gt, pred, iou):
    """Greedy one-to-one matching: pairs by IoU, highest first; ties by lower ground-truth
    label, then lower predicted label. Returns a boolean mask over the candidate pairs.

    The candidates are only the overlapping pairs (a few per line), so the sequential
    greedy pass runs over a short list, not over pixels.
    """
    order = np.lexsort((pred, gt, -iou))
    taken_gt, taken_pred = set(), set()
    chosen = np.zeros(iou.size, dtype=bool)
    for k in order.tolist():
        g, p = int(gt[k]), int(pred[k])
        if g in taken_gt or p in taken_pred:
            continue
        taken_gt.add(g)
        taken_pred.add(p)
        chosen[k] = True
    return chosen


def standard_page(table, threshold=0.75, match_threshold=0.75):
    """Line IU, Pixel IU, DR, RA, FM of one page, protocol `standard` (SPEC 4).

    table: overlap_table of ground-truth lines (rows 1..N1) and predicted lines
    (columns 1..N2). Pairs overlapping at all are matched one-to-one, greedily by IoU.
    Line IU = TP / (TP + FP + FN): a matched pair with precision >= t and recall >= t
    is TP; otherwise precision < t adds an FP and recall < t an FN; unmatched lines are
    FN (ground truth) or FP (prediction). Pixel IU = S / (|G| + |P| - S), S the overlap
    summed over matched pairs. M = pairs with IoU >= T_a; DR = M/N1, RA = M/N2,
    FM = 2 DR RA / (DR + RA). A 0/0 ratio is 1.

    Returns a dict of the five metrics, the counts (gt, predicted, correct, missed,
    extra, m) and `correct_gt`, a boolean per ground-truth line (label 1..N1).
    """
    table = np.asarray(table, dtype=np.int64)
    n1, n2 = table.shape[0] - 1, table.shape[1] - 1
    area_gt = table[1:].sum(axis=1)
    area_pred = table[:, 1:].sum(axis=0)
    inter_all = table[1:, 1:]
    gt, pred = np.nonzero(inter_all)
    inter = inter_all[gt, pred]
    union = area_gt[gt] + area_pred[pred] - inter
    iou = inter / union if inter.size else np.zeros(0)
    chosen = match_one_to_one(gt, pred, iou)
    m_gt, m_pred, m_inter = gt[chosen], pred[chosen], inter[chosen]
    precision = m_inter / area_pred[m_pred]
    recall = m_inter / area_gt[m_gt]
    good = (precision >= threshold) & (recall >= threshold)
    n_matched = int(chosen.sum())
    correct = int(good.sum())
    extra = int(np.count_nonzero(~good & (precision < threshold))) + (n2 - n_matched)
    missed = int(np.count_nonzero(~good & (recall < threshold))) + (n1 - n_matched)
    overlap = int(m_inter.sum())
    m = int(np.count_nonzero(iou >= match_threshold))
    dr, ra = ratio(m, n1), ratio(m, n2)
    correct_gt = np.zeros(n1, dtype=bool)
    correct_gt[m_gt[good]] = True
    return {
        "line_iu": ratio(correct, correct + extra + missed),
        "pixel_iu": ratio(overlap, int(area_gt.sum()) + int(area_pred.sum()) - overlap),
        "dr": dr, "ra": ra, "fm": f_measure(dr, ra),
        "gt": n1, "predicted": n2, "correct": correct, "missed": missed, "extra": extra, "m": m,
        "correct_gt": correct_gt,
    }


def fest2025_labels(component_colours, background_present):
    """The official FEST 2025 script's label of each predicted component.

    The script numbers the distinct colours of the page in lexicographic order (0..K-1)
    and casts those numbers to uint8. component_colours: one colour key per component
    (keys ordered as the colours are, e.g. R<<16|G<<8|B), background_present: whether the
    page has black pixels (black, the smallest colour, is then number 0).
    Returns (label per component, number of distinct uint8 labels on the page).
    """
    distinct, rank = np.unique(np.asarray(component_colours), return_inverse=True)
    shift = 1 if background_present else 0
    colours = distinct.size + shift
    labels = ((rank + shift) % 256).astype(np.int64)
    return labels, min(colours, 256)


def fest2025_table(table, component_labels, n_labels):
    """Columns of an overlap table merged by the official script's labels.

    table: overlap_table with predicted components as columns (0 = background, black);
    component_labels: the uint8 label of components 1..N2. Column 0 stays label 0.
    """
    table = np.asarray(table, dtype=np.int64)
    merged = np.zeros((table.shape[0], max(n_labels, 1)), dtype=np.int64)
    columns = np.concatenate([[0], np.asarray(component_labels, dtype=np.int64)])
    np.add.at(merged.T, columns, table.T)
    return merged


def fest2025_page(table, n_labels, threshold=0.75, match_threshold=0.75):
    """The official FEST 2025 script's numbers for one page (SPEC 4, protocol fest2025).

    table: rows ground-truth lines 0..N1 (0 background), columns the script's labels
    0..n_labels-1 (fest2025_table). Label 0 is never a line; N2 = n_labels - 1.
    Each ground-truth line's match is the first label of highest IoU, if IoU > 0 (not
    one-to-one). Over the matches: pixel TP/FP/FN summed, Pixel IU = TP/(TP+FP+FN);
    a match is correct if P >= t and R >= t, missed if R < t, else extra; Line IU =
    correct / matches (0 without matches). M = pairs with IoU >= T_a; DR = M/N1 and
    RA = M/N2, both 0 if N1 = 0; FM = 0 if DR + RA = 0.
    `ra_undefined` is True where the script divides by N2 = 0 and crashes (RA given as 0).
    """
    table = np.asarray(table, dtype=np.int64)
    n1, n2 = table.shape[0] - 1, n_labels - 1
    area_gt = table[1:].sum(axis=1)
    area_pred = table[:, 1:n_labels].sum(axis=0)
    inter = table[1:, 1:n_labels]
    union = area_gt[:, None] + area_pred[None, :] - inter
    iou = inter / np.maximum(union, 1)
    m = int(np.count_nonzero(iou >= match_threshold))
    ra_undefined = False
    if n2 > 0 and n1 > 0:
        best = np.argmax(iou, axis=1)
        rows = np.arange(n1)
        matched = iou[rows, best] > 0
        rows, best = rows[matched], best[matched]
        m_inter, m_union = inter[rows, best], union[rows, best]
        precision = m_inter / area_pred[best]
        recall = m_inter / area_gt[rows]
        good = (precision >= threshold) & (recall >= threshold)
        correct = int(good.sum())
        missed = int(np.count_nonzero(~good & (recall < threshold)))
        extra = int(rows.size) - correct - missed
        total_union = int(m_union.sum())
        pixel_iu = 0.0 if total_union == 0 else int(m_inter.sum()) / total_union
        line_iu = 0.0 if rows.size == 0 else correct / int(rows.size)
    else:
        correct = missed = extra = 0
        pixel_iu = line_iu = 0.0
    if n1 == 0:
        dr = ra = 0.0
    else:
        dr = m / n1
        if n2 == 0:
            ra, ra_undefined = 0.0, True
        else:
            ra = m / n2
    fm = 0.0 if dr + ra == 0 else 2 * (dr * ra) / (dr + ra)
    return {
        "line_iu": line_iu, "pixel_iu": pixel_iu, "dr": dr, "ra": ra, "fm": fm,
        "gt": n1, "predicted": n2, "correct": correct, "missed": missed, "extra": extra, "m": m,
        "ra_undefined": ra_undefined,
    }


def error_map(gt_labels, correct_gt, predicted_foreground):
    """Per-pixel classes of the error map: 0 background, 1 a correctly detected
    ground-truth line, 2 another ground-truth line (missed), 3 a predicted pixel outside
    the ground truth (extra). uint8, the shape of the page."""
    lut = np.concatenate([[0], np.where(correct_gt, 1, 2)]).astype(np.uint8)
    classes = lut[gt_labels]
    classes[predicted_foreground & (gt_labels == 0)] = 3
    return classes


def pack_mask(mask):
    """A boolean mask as (shape, bits): 1 bit a pixel, for keeping many pages in memory."""
    mask = np.asarray(mask, dtype=bool)
    return mask.shape, np.packbits(mask.ravel())
