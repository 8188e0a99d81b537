"""The runnable acceptance bundle rendered from a fixture spec (pure Python, no Django)."""

from acceptance.bundle.build import (
    BUNDLE_FILES,
    MANIFEST_SCHEMA,
    UPLOAD_PATH_TEMPLATE,
    build_bundle,
    bundle_root,
    render_files,
)

__all__ = [
    "BUNDLE_FILES",
    "MANIFEST_SCHEMA",
    "UPLOAD_PATH_TEMPLATE",
    "build_bundle",
    "bundle_root",
    "render_files",
]
