"""Multi-class classification as a lifelong task: the classification track."""
