//! A camera frame made ready for the screen: RGBA pixels egui can upload as a texture,
//! converted on the vision thread so the window only uploads.

use opencv::core::Mat;
use opencv::imgproc;
use opencv::prelude::*;
use std::sync::Arc;

/// A frame as the window shows it.
#[derive(Clone)]
pub struct Picture {
    /// The pixels (shared: the window keeps the last one while the next is read).
    pub image: Arc<egui::ColorImage>,
}

impl Picture {
    /// The picture of a BGR (or grey) frame.
    pub fn of(frame: &Mat) -> opencv::Result<Picture> {
        let code = match frame.channels() {
            1 => imgproc::COLOR_GRAY2RGBA,
            4 => imgproc::COLOR_BGRA2RGBA,
            _ => imgproc::COLOR_BGR2RGBA,
        };
        let mut rgba = Mat::default();
        imgproc::cvt_color(frame, &mut rgba, code, 0)?;
        let size = [rgba.cols().max(0) as usize, rgba.rows().max(0) as usize];
        let bytes = rgba.data_bytes()?;
        if bytes.len() != size[0] * size[1] * 4 {
            return Err(opencv::Error::new(
                opencv::core::StsBadArg,
                "the frame's pixels are not contiguous",
            ));
        }
        Ok(Picture {
            image: Arc::new(egui::ColorImage::from_rgba_unmultiplied(size, bytes)),
        })
    }

    /// Width and height in pixels.
    pub fn size(&self) -> [usize; 2] {
        self.image.size
    }
}
