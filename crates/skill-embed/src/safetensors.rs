//! The `safetensors` file format, as far as a model of `F32` tensors needs
//! it: an 8-byte little-endian header length, a JSON header naming each
//! tensor's dtype, shape and byte range, then the data.

use crate::EmbedError;
use serde_json::Value;

/// The tensors of one file.
pub(crate) struct Tensors {
    header: serde_json::Map<String, Value>,
    data: Vec<u8>,
    start: usize,
}

fn bad(message: impl Into<String>) -> EmbedError {
    EmbedError::Model(message.into())
}

impl Tensors {
    pub(crate) fn parse(data: Vec<u8>) -> Result<Self, EmbedError> {
        let len_bytes: [u8; 8] = data
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("model.safetensors is too short"))?;
        let len =
            usize::try_from(u64::from_le_bytes(len_bytes)).map_err(|_| bad("header too long"))?;
        let header = data
            .get(8..8usize.saturating_add(len))
            .ok_or_else(|| bad("model.safetensors header is cut"))?;
        let header: Value = serde_json::from_slice(header)
            .map_err(|e| bad(format!("model.safetensors header: {e}")))?;
        let Value::Object(header) = header else {
            return Err(bad("model.safetensors header is not an object"));
        };
        Ok(Tensors {
            header,
            data,
            start: 8 + len,
        })
    }

    /// The shape of tensor `name`.
    pub(crate) fn shape(&self, name: &str) -> Result<Vec<usize>, EmbedError> {
        let entry = self
            .header
            .get(name)
            .ok_or_else(|| bad(format!("tensor {name} is missing")))?;
        entry
            .get("shape")
            .and_then(Value::as_array)
            .ok_or_else(|| bad(format!("tensor {name} has no shape")))?
            .iter()
            .map(|d| {
                d.as_u64()
                    .and_then(|d| usize::try_from(d).ok())
                    .ok_or_else(|| bad(format!("tensor {name} has a bad shape")))
            })
            .collect()
    }

    /// Tensor `name`, which must be `F32` of `shape`.
    pub(crate) fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let entry = self
            .header
            .get(name)
            .ok_or_else(|| bad(format!("tensor {name} is missing")))?;
        if entry.get("dtype").and_then(Value::as_str) != Some("F32") {
            return Err(bad(format!("tensor {name} is not F32")));
        }
        if self.shape(name)? != shape {
            return Err(bad(format!("tensor {name} is not of shape {shape:?}")));
        }
        let offsets = entry
            .get("data_offsets")
            .and_then(Value::as_array)
            .filter(|o| o.len() == 2)
            .ok_or_else(|| bad(format!("tensor {name} has no data offsets")))?;
        let at = |i: usize| {
            offsets[i]
                .as_u64()
                .and_then(|o| usize::try_from(o).ok())
                .ok_or_else(|| bad(format!("tensor {name} has bad offsets")))
        };
        let outside = || bad(format!("tensor {name} lies outside the file"));
        let from = self.start.checked_add(at(0)?).ok_or_else(outside)?;
        let to = self.start.checked_add(at(1)?).ok_or_else(outside)?;
        let size = shape
            .iter()
            .try_fold(4usize, |size, &d| size.checked_mul(d))
            .ok_or_else(|| bad(format!("tensor {name} is too large")))?;
        let bytes = self
            .data
            .get(from..to)
            .filter(|b| b.len() == size)
            .ok_or_else(outside)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
}
