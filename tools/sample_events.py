"""Sample phase of the events track: a dozen categories named as ChaLearn names them.

Every category file lists the same few hundred image ids (as in ChaLearn, where each
category file ranks the whole test set); about one image in ten is a positive. The
submission is an imperfect classifier whose confidences are rounded to two decimals,
so that ties occur; its files list the images in another order than the reference,
one uses tabs and CRLF line ends, and the reference labels negatives as 0 or -1.
"""

import os

import numpy as np

CATEGORIES = ("Ati_Atihan", "Carnival_Rio", "Chinese_New_Year", "Diwali_Festival", "Dia_de_los_Muertos",
              "Holi_Festival", "La_Tomatina", "Oktoberfest", "Pflasterspektakel", "Sapporo_Snow_Festival",
              "Songkran_Water_Festival", "Up_Helly_Aa")
IMAGES = 300


def make(ref, res, seed=2015, public_details=False):
    rng = np.random.RandomState(seed)
    for folder in (ref, res):
        os.makedirs(folder, exist_ok=True)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: events\nmissing: error\npublic_details: %s\n" % ("true" if public_details else "false"))
    ids = ["%06d.jpg" % number for number in np.sort(rng.choice(np.arange(1, 40000), size=IMAGES, replace=False))]
    event = rng.randint(0, len(CATEGORIES), size=IMAGES)
    for k, name in enumerate(CATEGORIES):
        positive = event == k
        negative_label = -1 if k % 2 else 0
        with open(os.path.join(ref, name + ".txt"), "w", newline="") as stream:
            for image, is_positive in zip(ids, positive):
                stream.write("%s %d\n" % (image, 1 if is_positive else negative_label))
        skill = 0.6 + 0.35 * k / (len(CATEGORIES) - 1)  # some categories are easier than others
        confidence = np.clip(np.where(positive, skill, 1 - skill) + rng.randn(IMAGES) * 0.25, 0, 1)
        confidence = np.round(confidence, 2)  # ties
        separator, end = ("\t", "\r\n") if name == "La_Tomatina" else (" ", "\n")
        with open(os.path.join(res, name + ".txt"), "w", newline="") as stream:
            for i in rng.permutation(IMAGES):
                stream.write("%s%s%.2f%s" % (ids[i], separator, confidence[i], end))
