//! Writing a rendered grey page so it prints at true scale: a PNG that records its dpi
//! (OpenCV's encoder cannot, so a `pHYs` chunk is added), and a minimal one-page PDF at
//! the paper's size that embeds the PNG's compressed pixels losslessly (FlateDecode with
//! PNG predictors), so no image library beyond OpenCV is needed.

use crate::error::{CalibrationError, Result};
use opencv::core::{Mat, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The page encoded as PNG (8-bit grey, best compression) with its dpi recorded.
pub fn png_with_dpi(page: &Mat, dpi: u32) -> Result<Vec<u8>> {
    if page.channels() != 1 {
        return Err(CalibrationError::Invalid(
            "the page must be a grey image".into(),
        ));
    }
    let mut buf: Vector<u8> = Vector::new();
    let params: Vector<i32> = Vector::from_slice(&[imgcodecs::IMWRITE_PNG_COMPRESSION, 9]);
    if !imgcodecs::imencode(".png", page, &mut buf, &params)? {
        return Err(CalibrationError::Invalid(
            "OpenCV could not encode the page as PNG".into(),
        ));
    }
    let png = buf.to_vec();
    insert_phys(&png, dpi)
}

/// Adds a `pHYs` chunk (pixels per metre) right after IHDR.
fn insert_phys(png: &[u8], dpi: u32) -> Result<Vec<u8>> {
    let ihdr_end = PNG_SIGNATURE.len() + 8 + 13 + 4;
    if png.len() < ihdr_end || !png.starts_with(PNG_SIGNATURE) || &png[12..16] != b"IHDR" {
        return Err(CalibrationError::Invalid(
            "OpenCV produced an unexpected PNG".into(),
        ));
    }
    let ppm = (f64::from(dpi) / 0.0254).round() as u32;
    let mut data = Vec::with_capacity(9);
    data.extend_from_slice(&ppm.to_be_bytes());
    data.extend_from_slice(&ppm.to_be_bytes());
    data.push(1); // unit: metre
    let mut out = Vec::with_capacity(png.len() + 21);
    out.extend_from_slice(&png[..ihdr_end]);
    push_chunk(&mut out, b"pHYs", &data);
    out.extend_from_slice(&png[ihdr_end..]);
    Ok(out)
}

fn push_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc_input = Vec::with_capacity(4 + data.len());
    crc_input.extend_from_slice(kind);
    crc_input.extend_from_slice(data);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
}

/// CRC-32 (IEEE, as PNG uses).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// The dpi recorded in a PNG's `pHYs` chunk, if any (for checks and tests).
pub fn png_dpi(png: &[u8]) -> Option<f64> {
    let (_, chunks) = png_chunks(png)?;
    let (_, data) = chunks.into_iter().find(|(k, _)| k == b"pHYs")?;
    if data.len() != 9 || data[8] != 1 {
        return None;
    }
    let ppm = u32::from_be_bytes([data[0], data[1], data[2], data[3]]);
    Some(f64::from(ppm) * 0.0254)
}

type Chunks<'a> = Vec<([u8; 4], &'a [u8])>;

/// The chunks of a PNG, or `None` when it is not one.
fn png_chunks(png: &[u8]) -> Option<((), Chunks<'_>)> {
    let mut rest = png.strip_prefix(PNG_SIGNATURE)?;
    let mut chunks = Vec::new();
    while rest.len() >= 12 {
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let kind: [u8; 4] = [rest[4], rest[5], rest[6], rest[7]];
        let data = rest.get(8..8 + len)?;
        chunks.push((kind, data));
        rest = rest.get(12 + len..)?;
        if &kind == b"IEND" {
            break;
        }
    }
    Some(((), chunks))
}

/// A one-page PDF of `page_mm` (width, height) showing the grey page image at `dpi`,
/// its top-left corner on the page's top-left corner, so it prints at true scale.
pub fn pdf_page(page: &Mat, dpi: u32, page_mm: (f64, f64)) -> Result<Vec<u8>> {
    let png = png_with_dpi(page, dpi)?;
    let bad = || CalibrationError::Invalid("OpenCV produced an unexpected PNG".into());
    let (_, chunks) = png_chunks(&png).ok_or_else(bad)?;
    let ihdr = chunks
        .iter()
        .find(|(k, _)| k == b"IHDR")
        .map(|(_, d)| *d)
        .ok_or_else(bad)?;
    if ihdr.len() != 13 || ihdr[8] != 8 || ihdr[9] != 0 || ihdr[12] != 0 {
        // Only 8-bit grey, non-interlaced images map straight onto a PDF image.
        return Err(bad());
    }
    let width = u32::from_be_bytes([ihdr[0], ihdr[1], ihdr[2], ihdr[3]]);
    let height = u32::from_be_bytes([ihdr[4], ihdr[5], ihdr[6], ihdr[7]]);
    let idat: Vec<u8> = chunks
        .iter()
        .filter(|(k, _)| k == b"IDAT")
        .flat_map(|(_, d)| d.iter().copied())
        .collect();

    let pt = |mm: f64| mm * 72.0 / 25.4;
    let (page_w, page_h) = (pt(page_mm.0), pt(page_mm.1));
    let img_w = f64::from(width) * 72.0 / f64::from(dpi);
    let img_h = f64::from(height) * 72.0 / f64::from(dpi);
    let content = format!(
        "q {img_w:.4} 0 0 {img_h:.4} 0 {:.4} cm /Im0 Do Q\n",
        page_h - img_h
    );

    let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |out: &mut Vec<u8>, body: &[u8]| {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", offsets.len()).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    };
    object(&mut out, b"<< /Type /Catalog /Pages 2 0 R >>");
    object(&mut out, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    object(
        &mut out,
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.4} {page_h:.4}] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>"
        )
        .as_bytes(),
    );
    let mut image = format!(
        "<< /Type /XObject /Subtype /Image /Width {width} /Height {height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 1 /BitsPerComponent 8 /Columns {width} >> /Length {} >>\nstream\n",
        idat.len()
    )
    .into_bytes();
    image.extend_from_slice(&idat);
    image.extend_from_slice(b"\nendstream");
    object(&mut out, &image);
    let mut contents = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
    contents.extend_from_slice(content.as_bytes());
    contents.extend_from_slice(b"endstream");
    object(&mut out, &contents);

    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes(),
    );
    for off in &offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            offsets.len() + 1
        )
        .as_bytes(),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_iend() {
        // The CRC every PNG ends with.
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }
}
