"""Offline OCR: page images to lines and words with boxes, for scans that have no usable text layer.

The PP-OCRv4 Chinese+English detection and recognition models run on onnxruntime (already
shipped for embeddings); pre- and post-processing are plain numpy, so OCR adds no OpenCV.
"""
