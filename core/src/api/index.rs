//! Indexing (`t[...]`): ints, slices with positive steps, None and Ellipsis are views (no copy); index tensors
//! (integer or bool) go to `advanced.rs`.

pub use crate::api::advanced::IndexItem;
use crate::base::view::View;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// Clamp a Python slice bound into [0, len].
fn clamp_bound(b: Option<i64>, len: usize, default: usize) -> usize {
    match b {
        None => default,
        Some(v) if v < 0 => (v + len as i64).max(0) as usize,
        Some(v) => (v as usize).min(len),
    }
}

impl Tensor {
    pub fn index(&self, items: &[IndexItem]) -> Result<Tensor> {
        if items.iter().any(|it| matches!(it, IndexItem::Tensor(_))) {
            return crate::api::advanced::index(self, items);
        }
        let consumes = |it: &IndexItem| matches!(it, IndexItem::Int(_) | IndexItem::Slice { .. });
        let used = items.iter().filter(|it| consumes(it)).count();
        let ellipses = items.iter().filter(|it| matches!(it, IndexItem::Ellipsis)).count();
        if ellipses > 1 {
            return Err(Error::Index("an index can only have a single ellipsis ('...')".into()));
        }
        if used > self.ndim() {
            return Err(Error::Index(format!("too many indices for tensor of dimension {} (got {used})", self.ndim())));
        }
        // Check the items once against the shape; the same steps then build the view (see `derive`).
        self.index_view(&self.view, items, used)?;
        self.derive(|v| self.index_view(v, items, used))
    }

    fn index_view(&self, view: &View, items: &[IndexItem], used: usize) -> Result<View> {
        let mut v = view.clone();
        let mut d = 0usize; // the dim of `v` the next item applies to
        for it in items {
            match *it {
                IndexItem::Tensor(_) => {
                    return Err(Error::Index("an index tensor reached basic indexing".into()));
                }
                IndexItem::Int(i) => {
                    let len = v.shape[d] as i64;
                    let j = if i < 0 { i + len } else { i };
                    if j < 0 || j >= len {
                        return Err(Error::Index(format!(
                            "index {i} is out of bounds for dimension {d} with size {len}"
                        )));
                    }
                    v = v.select(d, j as usize);
                }
                IndexItem::Slice { start, stop, step } => {
                    let step = step.unwrap_or(1);
                    if step <= 0 {
                        return Err(Error::Value("step must be greater than zero".into()));
                    }
                    let len = v.shape[d];
                    let s = clamp_bound(start, len, 0);
                    let e = clamp_bound(stop, len, len);
                    v = v.slice(d, s, e.max(s), step as usize);
                    d += 1;
                }
                IndexItem::NewAxis => {
                    v = v.unsqueeze(d);
                    d += 1;
                }
                IndexItem::Ellipsis => {
                    d += self.ndim() - used;
                }
            }
        }
        Ok(v)
    }
}
