"""The named colour palette shared by the sample-image generator and the simulator's vision.

Sample images are drawn only with these colours, so the simulated vision model can name what it
sees by nearest-palette matching, and the visual-factuality criteria can name the same colours.
"""

PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (220, 30, 30),
    "green": (30, 160, 60),
    "blue": (30, 70, 210),
    "yellow": (240, 210, 40),
    "orange": (245, 140, 20),
    "purple": (130, 50, 170),
    "pink": (245, 150, 190),
    "brown": (130, 80, 40),
    "black": (20, 20, 20),
    "white": (250, 250, 250),
    "gray": (128, 128, 128),
}
