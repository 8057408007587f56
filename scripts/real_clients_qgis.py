#!/usr/bin/python3
"""QGIS' `arcgisfeatureserver` provider against `featureload serve`, as a map canvas uses it.

Run by scripts/real_clients.py with Debian's system Python (/usr/bin/python3, where `python3-qgis` installs the
`qgis` module), headless (`QT_QPA_PLATFORM=offscreen`). It only drives QGIS and reports what QGIS made of each
layer, as one JSON document on standard output; real_clients.py holds every expectation and compares the object
IDs with shapely on rows it fetched itself.

Arguments: one or more `--layer URL` (a FeatureServer layer URL), and `--rect xmin,ymin,xmax,ymax` (repeatable, in
the layer's spatial reference). Per layer it reports: whether the layer is valid, its fields (name and QGIS type),
its geometry type, CRS and feature count; the OBJECTIDs of every feature (no filter); and per rectangle the
OBJECTIDs QGIS returns for `QgsFeatureRequest().setFilterRect(rect)` (what the map canvas asks while drawing:
features whose bounding box meets the rectangle) and with the `ExactIntersect` flag (shapes that meet it), each on a
freshly opened layer (the provider caches features). Every URL QGIS requested for a rectangle is listed, so a
failure shows what the provider sent.
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import (  # noqa: E402 - after QT_QPA_PLATFORM
    Qgis,
    QgsApplication,
    QgsFeatureRequest,
    QgsNetworkAccessManager,
    QgsRectangle,
    QgsVectorLayer,
    QgsWkbTypes,
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layer", action="append", required=True, help="FeatureServer layer URL (repeatable)")
    parser.add_argument("--rect", action="append", default=[], help="xmin,ymin,xmax,ymax (repeatable)")
    arguments = parser.parse_args()
    rectangles = [[float(value) for value in text.split(",")] for text in arguments.rect]

    application = QgsApplication([], False)
    application.initQgis()
    requested = []
    # Every request QGIS builds passes the preprocessor (requestAboutToBeCreated does not fire for the provider's
    # blocking requests).
    QgsNetworkAccessManager.setRequestPreprocessor(lambda request: requested.append(request.url().toString()))

    def open_layer(url):
        return QgsVectorLayer(f"url='{url}'", url.rsplit("/", 1)[-1], "arcgisfeatureserver")

    report = {"qgis": Qgis.QGIS_VERSION, "layers": []}
    for url in arguments.layer:
        requested.clear()
        started = time.monotonic()
        layer = open_layer(url)
        entry = {"url": url, "valid": layer.isValid()}
        if layer.isValid():
            entry["fields"] = [[field.name(), field.typeName()] for field in layer.fields()]
            entry["geometryType"] = QgsWkbTypes.displayString(layer.wkbType())
            entry["crs"] = layer.crs().authid()
            entry["featureCount"] = layer.featureCount()
            extent = layer.extent()
            entry["extent"] = [extent.xMinimum(), extent.yMinimum(), extent.xMaximum(), extent.yMaximum()]
            entry["all"] = sorted(feature["OBJECTID"] for feature in layer.getFeatures())
            entry["rects"] = []
            # A fresh layer per rectangle, as a newly opened map draws: the provider caches what it fetched, so on
            # the layer above every rectangle would be answered from memory.
            for xmin, ymin, xmax, ymax in rectangles:
                requested.clear()
                rectangle = QgsRectangle(xmin, ymin, xmax, ymax)
                by_box = sorted(feature["OBJECTID"] for feature in open_layer(url).getFeatures(QgsFeatureRequest().setFilterRect(rectangle)))
                box_requests = list(requested)
                requested.clear()
                exact_request = QgsFeatureRequest().setFilterRect(rectangle).setFlags(QgsFeatureRequest.ExactIntersect)
                exact = sorted(feature["OBJECTID"] for feature in open_layer(url).getFeatures(exact_request))
                entry["rects"].append({"rect": [xmin, ymin, xmax, ymax], "bbox": by_box, "exact": exact,
                                       "bboxRequests": box_requests, "exactRequests": list(requested)})
        else:
            entry["error"] = layer.error().summary() if layer.error() else ""
            entry["requests"] = list(requested)
        entry["seconds"] = round(time.monotonic() - started, 2)
        report["layers"].append(entry)
    json.dump(report, sys.stdout)
    sys.stdout.flush()
    application.exitQgis()


if __name__ == "__main__":
    main()
