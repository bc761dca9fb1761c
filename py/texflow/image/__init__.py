"""`tf.image`: TensorFlow 2's image functions, composed of texflow's ops (gather, slicing,
reverse, pad, arithmetic), so they run on every backend, inside tf.function, and have
gradients wherever TensorFlow's do.

Images are [height, width, channels], batches [batch, height, width, channels]. Sizes,
offsets and `k` must be known when a function is traced (texflow traces static shapes).
"""

from ._color import (adjust_brightness, adjust_contrast, adjust_gamma, convert_image_dtype,
                     grayscale_to_rgb, per_image_standardization, rgb_to_grayscale, rgb_to_yiq,
                     rgb_to_yuv, yiq_to_rgb, yuv_to_rgb)
from ._distort import (sample_distorted_bounding_box,
                       stateless_sample_distorted_bounding_box)
from ._draw import draw_bounding_boxes
from ._geometry import (central_crop, crop_to_bounding_box, flip_left_right, flip_up_down,
                        pad_to_bounding_box, resize_with_crop_or_pad, rot90)
from ._geometry import transpose_image as transpose
from ._hsv import adjust_hue, adjust_saturation, hsv_to_rgb, rgb_to_hsv
from ._nms import (combined_non_max_suppression, non_max_suppression,
                   non_max_suppression_overlaps, non_max_suppression_padded,
                   non_max_suppression_with_scores)
from ._patches import crop_and_resize, extract_patches
from ._quality import image_gradients, psnr, sobel_edges, total_variation
from ._random_ops import (random_brightness, random_contrast, random_crop,
                          random_flip_left_right, random_flip_up_down, random_hue,
                          random_saturation, stateless_random_brightness,
                          stateless_random_contrast, stateless_random_crop,
                          stateless_random_flip_left_right, stateless_random_flip_up_down,
                          stateless_random_hue, stateless_random_saturation)
from ._ssim import ssim, ssim_multiscale
from ._sampling import ResizeMethod, resize, resize_with_pad

__all__ = ["ResizeMethod", "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue",
           "adjust_saturation", "central_crop", "combined_non_max_suppression",
           "convert_image_dtype", "crop_and_resize", "crop_to_bounding_box",
           "draw_bounding_boxes", "extract_patches", "flip_left_right", "flip_up_down",
           "grayscale_to_rgb", "hsv_to_rgb", "image_gradients", "non_max_suppression",
           "non_max_suppression_overlaps", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "pad_to_bounding_box",
           "per_image_standardization", "psnr", "random_brightness", "random_contrast",
           "random_crop", "random_flip_left_right", "random_flip_up_down", "random_hue",
           "random_saturation", "resize", "resize_with_crop_or_pad", "resize_with_pad",
           "rgb_to_grayscale", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv", "rot90",
           "sample_distorted_bounding_box", "sobel_edges", "ssim", "ssim_multiscale",
           "stateless_random_brightness", "stateless_random_contrast",
           "stateless_random_crop", "stateless_random_flip_left_right",
           "stateless_random_flip_up_down", "stateless_random_hue",
           "stateless_random_saturation", "stateless_sample_distorted_bounding_box",
           "total_variation", "transpose", "yiq_to_rgb", "yuv_to_rgb"]
