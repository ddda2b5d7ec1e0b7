"""Quantized tensors (layer L3): ``QTensor``, quantize/dequantize, and the quantized CPU kernels."""
