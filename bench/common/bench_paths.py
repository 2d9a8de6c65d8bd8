"""Where the Python benchmarks find the shared datasets."""
import os


def shared_data_dir(root):
    """$TOPKFS_DATA_DIR, else the shared data folder beside the checkout `root`."""
    return os.environ.get("TOPKFS_DATA_DIR", os.path.join(root, "..", "shared", "data"))
