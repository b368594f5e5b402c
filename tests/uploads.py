"""The file uploader an AppTest run shows now: an uploader's key changes each time it lets go
of a file (:func:`dpui.kit.session_memory.release_upload`)."""

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import FileUploader

from dpui.kit import session_memory


def uploader(at: AppTest, name: str) -> FileUploader:
    """The uploader called ``name`` in ``at``'s last run."""
    return at.file_uploader(key=session_memory.uploader_key(name, at.session_state))
