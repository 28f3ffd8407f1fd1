//! Saving and loading named tensors in the safetensors format (the `safetensors` crate parses and checks the
//! header: lengths, offsets and overlaps), as bytes; front ends read and write the files.

use safetensors::tensor::{Dtype, SafeTensors, TensorView};

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::tensor::realize::read_bytes;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

fn to_st(d: DType) -> Dtype {
    match d {
        DType::F32 => Dtype::F32,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F64 => Dtype::F64,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::Bool => Dtype::BOOL,
    }
}

fn from_st(d: Dtype, name: &str) -> Result<DType> {
    Ok(match d {
        Dtype::F32 => DType::F32,
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        Dtype::F64 => DType::F64,
        Dtype::I32 => DType::I32,
        Dtype::I64 => DType::I64,
        Dtype::BOOL => DType::Bool,
        other => return Err(Error::Dtype(format!("tensor '{name}' has dtype {other:?}, which vkml does not support"))),
    })
}

/// The safetensors bytes of `tensors` (values are read back from their devices), with optional string metadata.
pub fn save_safetensors(tensors: &[(String, Tensor)], metadata: Option<Vec<(String, String)>>) -> Result<Vec<u8>> {
    let mut data = Vec::with_capacity(tensors.len());
    for (name, t) in tensors {
        data.push(Entry { name: name.clone(), dtype: t.dtype(), shape: t.shape().to_vec(), bytes: read_bytes(t)? });
    }
    serialize(&data, metadata)
}

/// One tensor's values already read from its device (a browser reads them asynchronously first).
pub struct Entry {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// Row-major, NumPy layout.
    pub bytes: Vec<u8>,
}

/// The safetensors bytes of entries whose values are already on the host.
pub fn serialize(data: &[Entry], metadata: Option<Vec<(String, String)>>) -> Result<Vec<u8>> {
    if data.iter().any(|e| e.name == "__metadata__") {
        return Err(Error::Value(
            "a tensor cannot be saved as '__metadata__': the safetensors format keeps that key for its metadata".into(),
        ));
    }
    let views = data
        .iter()
        .map(|e| {
            TensorView::new(to_st(e.dtype), e.shape.clone(), &e.bytes)
                .map(|v| (e.name.clone(), v))
                .map_err(|err| Error::Value(format!("tensor '{}': {err}", e.name)))
        })
        .collect::<Result<Vec<_>>>()?;
    let meta = metadata.map(|m| m.into_iter().collect());
    safetensors::serialize(views, meta).map_err(|e| Error::Value(format!("cannot write safetensors: {e}")))
}

/// Whether `bytes` start as a safetensors file does: a little-endian header length, then a JSON object that fits.
pub fn is_safetensors(bytes: &[u8]) -> bool {
    let Some(len) = bytes.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()).map(u64::from_le_bytes) else {
        return false;
    };
    usize::try_from(len).ok().and_then(|n| n.checked_add(8)).is_some_and(|end| end <= bytes.len())
        && bytes.get(8) == Some(&b'{')
}

/// The tensors stored in safetensors `bytes`, in file order (the order of their data, the same in every process),
/// created on `device`. A malformed or truncated file is an error that says what is wrong.
pub fn load_safetensors(bytes: &[u8], device: DeviceId) -> Result<Vec<(String, Tensor)>> {
    let st = SafeTensors::deserialize(bytes).map_err(|e| Error::Io(format!("not a valid safetensors file: {e}")))?;
    let mut views = st.tensors();
    views.sort_by_key(|(name, v)| (v.data().as_ptr() as usize, name.clone()));
    let mut out = Vec::new();
    for (name, view) in views {
        let name = name.as_str();
        let dtype = from_st(view.dtype(), name)?;
        let t = Tensor::from_bytes(view.data().to_vec(), view.shape(), dtype, device)?;
        out.push((name.to_string(), t));
    }
    Ok(out)
}
