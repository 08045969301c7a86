"""Qt-free drawing maths: the palette (every colour with a meaning), lane layout and error geometry. Plain functions, tested without a window."""
