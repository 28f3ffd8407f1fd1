//! Shapes and strided views: a tensor is a view (shape, strides, offset in elements) over a buffer, so reshape,
//! permute, expand and slicing never copy.

use crate::util::error::{Error, Result};

/// A strided window onto a buffer. Strides are in elements and may be 0 (broadcast).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
    pub offset: usize,
}

/// Number of elements of a shape.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Elements of a shape, or an error when the count (or its size in bytes at 8 bytes an element) overflows; every
/// node and every expanded view is checked with it, so later arithmetic on sizes cannot overflow.
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    let n = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    match n {
        Some(n) if n.checked_mul(8).is_some_and(|b| b <= isize::MAX as usize) => Ok(n),
        _ => Err(Error::Runtime(format!("a tensor of shape {shape:?} has too many elements"))),
    }
}

/// Row-major strides of a contiguous shape. They saturate only where a dim of size 0 makes the product of the
/// others meaningless (no element is ever addressed); other shapes' products are checked by `checked_numel`.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc = acc.saturating_mul(isize::try_from(shape[i].max(1)).unwrap_or(isize::MAX));
    }
    strides
}

/// Normalise a possibly negative dim against `ndim` (torch's wrapping rule; a 0-d tensor accepts -1 and 0).
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::Index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        )));
    }
    Ok(d as usize)
}

/// torch's broadcasting of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::Shape(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i} \
                 (shapes {a:?} and {b:?})"
            )));
        };
    }
    Ok(out)
}

/// `shape` with size-1 dims dropped and each dim merged into the previous one where every input's stride there times
/// its size equals its stride in the previous dim (row-major walking is unchanged), with the inputs' new strides.
pub fn coalesce(shape: &[usize], strides: &[&[isize]]) -> (Vec<usize>, Vec<Vec<isize>>) {
    if shape.contains(&0) {
        return (shape.to_vec(), strides.iter().map(|s| s.to_vec()).collect());
    }
    let mut dims: Vec<usize> = Vec::new();
    let mut out: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for (d, &n) in shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let mergeable =
            !dims.is_empty() && strides.iter().zip(&out).all(|(s, o)| o.last() == Some(&(s[d] * n as isize)));
        match dims.last_mut() {
            Some(last) if mergeable => {
                *last *= n;
                for (o, s) in out.iter_mut().zip(strides) {
                    if let Some(x) = o.last_mut() {
                        *x = s[d];
                    }
                }
            }
            _ => {
                dims.push(n);
                for (o, s) in out.iter_mut().zip(strides) {
                    o.push(s[d]);
                }
            }
        }
    }
    (dims, out)
}

impl View {
    /// A contiguous view of `shape` starting at element 0.
    pub fn contiguous(shape: &[usize]) -> View {
        View { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: 0 }
    }

    /// Whether this is `View::contiguous(shape)` itself (compared without building it: the planner asks per op).
    pub fn is_contiguous_of(&self, shape: &[usize]) -> bool {
        if self.offset != 0 || self.shape != shape {
            return false;
        }
        let mut acc = 1isize;
        for (&d, &st) in shape.iter().zip(&self.strides).rev() {
            if st != acc {
                return false;
            }
            acc = acc.saturating_mul(isize::try_from(d.max(1)).unwrap_or(isize::MAX));
        }
        true
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    /// True when the view reads elements 0..numel of its buffer in row-major order starting at its offset.
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected = 1isize;
        for i in (0..self.shape.len()).rev() {
            if self.shape[i] != 1 && self.strides[i] != expected {
                return false;
            }
            expected *= self.shape[i] as isize;
        }
        true
    }

    /// The same elements in the same row-major order over as few dims as `coalesce` leaves (a transposed image's
    /// split rows read as one line).
    pub fn coalesced(&self) -> View {
        let (shape, strides) = coalesce(&self.shape, &[&self.strides]);
        let strides = strides.into_iter().next().unwrap_or_default();
        View { shape, strides, offset: self.offset }
    }

    /// The buffer index of the element at multi-index `idx`.
    pub fn index_of(&self, idx: &[usize]) -> usize {
        let mut o = self.offset as isize;
        for (i, s) in idx.iter().zip(&self.strides) {
            o += *i as isize * s;
        }
        o as usize
    }

    /// Buffer indices of all elements in row-major order (the CPU oracle's gather order).
    pub fn indices(&self) -> Vec<usize> {
        let n = self.numel();
        let mut out = Vec::with_capacity(n);
        if n == 0 {
            return out;
        }
        let mut idx = vec![0usize; self.ndim()];
        for _ in 0..n {
            out.push(self.index_of(&idx));
            for d in (0..idx.len()).rev() {
                idx[d] += 1;
                if idx[d] < self.shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        out
    }

    /// Reorder dims; `perm` must be a permutation of 0..ndim.
    pub fn permute(&self, perm: &[usize]) -> Result<View> {
        let n = self.ndim();
        let mut seen = vec![false; n];
        if perm.len() != n {
            return Err(Error::Shape(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the \
                 desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {}",
                perm.len()
            )));
        }
        for &p in perm {
            if p >= n || seen[p] {
                return Err(Error::Runtime(format!("permute(): duplicate dims are not allowed ({perm:?})")));
            }
            seen[p] = true;
        }
        Ok(View {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        })
    }

    /// Broadcast to `shape` (torch's expand): new leading dims and size-1 dims get stride 0.
    pub fn expand(&self, shape: &[usize]) -> Result<View> {
        checked_numel(shape)?;
        if shape.len() < self.ndim() {
            return Err(Error::Shape(format!(
                "expand: the number of sizes provided ({}) must be greater or equal to the number of dimensions in \
                 the tensor ({})",
                shape.len(),
                self.ndim()
            )));
        }
        let lead = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for i in 0..self.ndim() {
            let (have, want) = (self.shape[i], shape[lead + i]);
            strides[lead + i] = if have == want {
                self.strides[i]
            } else if have == 1 {
                0
            } else {
                return Err(Error::Shape(format!(
                    "The expanded size of the tensor ({want}) must match the existing size ({have}) at \
                     non-singleton dimension {}. Target sizes: {shape:?}. Tensor sizes: {:?}",
                    lead + i,
                    self.shape
                )));
            };
        }
        Ok(View { shape: shape.to_vec(), strides, offset: self.offset })
    }

    /// Reinterpret as `shape` without copying, if the strides allow it; `None` otherwise. A port of torch's
    /// `computeStride`: walk old dims from the innermost, grouping runs that are contiguous among themselves, and
    /// require each group to be split exactly by the new dims.
    pub fn reshape(&self, shape: &[usize]) -> Option<View> {
        if numel(shape) != self.numel() {
            return None;
        }
        if self.numel() == 0 || self.ndim() == 0 {
            return Some(View { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: self.offset });
        }
        let (old, olds) = (&self.shape, &self.strides);
        let mut strides = vec![0isize; shape.len()];
        let mut view_d = shape.len() as isize - 1;
        let mut chunk_base = olds[olds.len() - 1];
        let (mut tensor_numel, mut view_numel) = (1isize, 1isize);
        for td in (0..old.len()).rev() {
            tensor_numel *= old[td] as isize;
            if td == 0 || (old[td - 1] != 1 && olds[td - 1] != tensor_numel * chunk_base) {
                while view_d >= 0 && (view_numel < tensor_numel || shape[view_d as usize] == 1) {
                    strides[view_d as usize] = view_numel * chunk_base;
                    view_numel *= shape[view_d as usize] as isize;
                    view_d -= 1;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if td > 0 {
                    chunk_base = olds[td - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        if view_d != -1 {
            return None;
        }
        Some(View { shape: shape.to_vec(), strides, offset: self.offset })
    }

    /// Slice dim `d` as `start..stop` with a positive `step` (indices already clamped to the dim).
    pub fn slice(&self, d: usize, start: usize, stop: usize, step: usize) -> View {
        let len = if stop > start { (stop - start).div_ceil(step) } else { 0 };
        let mut v = self.clone();
        if len > 0 {
            v.offset = (v.offset as isize + start as isize * v.strides[d]) as usize;
        }
        v.shape[d] = len;
        // A dim of length 0 or 1 never steps, so its stride is free; this keeps huge steps from overflowing.
        if len > 1 {
            v.strides[d] *= step as isize;
        }
        v
    }

    /// Select index `i` of dim `d`, removing the dim.
    pub fn select(&self, d: usize, i: usize) -> View {
        let mut v = self.clone();
        v.offset = (v.offset as isize + i as isize * v.strides[d]) as usize;
        v.shape.remove(d);
        v.strides.remove(d);
        v
    }

    /// Reverse dim `d` (a negative stride); only copies read such views, so no in-place write ever targets one.
    pub fn flip(&self, d: usize) -> View {
        let mut v = self.clone();
        if v.shape[d] > 0 {
            v.offset = (v.offset as isize + (v.shape[d] as isize - 1) * v.strides[d]) as usize;
        }
        v.strides[d] = -v.strides[d];
        v
    }

    /// Insert a size-1 dim at `d`.
    pub fn unsqueeze(&self, d: usize) -> View {
        let mut v = self.clone();
        let s = if d < v.ndim() { v.strides[d] * v.shape[d] as isize } else { 1 };
        v.shape.insert(d, 1);
        v.strides.insert(d, s);
        v
    }
}
