"""Per-page signals that do not depend on the text lines (images, links, drawings)."""

from __future__ import annotations


def page_signals(page, page_no: int) -> dict:
    rect = page.rect
    area = max(rect.width * rect.height, 1.0)
    n_images = 0
    image_area = 0.0
    for info in page.get_image_info():
        bbox = info.get("bbox")
        if not bbox:
            continue
        n_images += 1
        x0, y0, x1, y1 = bbox
        x0, y0 = max(x0, rect.x0), max(y0, rect.y0)
        x1, y1 = min(x1, rect.x1), min(y1, rect.y1)
        if x1 > x0 and y1 > y0:
            image_area += (x1 - x0) * (y1 - y0)
    try:
        n_drawings = len(page.get_drawings())
    except Exception:
        n_drawings = 0
    return {
        "page": page_no,
        "width": rect.width,
        "height": rect.height,
        "rotation": page.rotation,
        "n_images": n_images,
        "image_area": image_area,
        "image_coverage": min(image_area / area, 1.0),
        "n_drawings": n_drawings,
        "n_links": len(page.get_links()),
    }
