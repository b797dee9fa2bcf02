"""The battle map: scene, token items, drag overlay, view."""
