//! Arguments torch takes as "an int or a tuple" (kernel sizes, strides, shapes) or "a string or ints" (a
//! convolution's padding): each front end reads what it was given into an `Arg`, and the kinds here turn it into
//! what the core function takes, with one wording of every error for Python and JavaScript.

use crate::nn::conv::Padding;
use crate::util::error::{Error, Result};

/// An argument as a front end received it; `None` is torch's None (or an argument left out).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    None,
    Int(i64),
    Float(f64),
    Str(String),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
}

impl From<i64> for Arg {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}

impl From<&str> for Arg {
    fn from(v: &str) -> Self {
        Arg::Str(v.to_string())
    }
}

impl Arg {
    /// This argument, or `default` where it is None.
    pub fn or(self, default: Arg) -> Arg {
        match self {
            Arg::None => default,
            given => given,
        }
    }

    /// What torch's messages show for a value: `2`, `[1, 2, 3]`, `'same'`.
    fn shown(&self) -> String {
        match self {
            Arg::None => "None".into(),
            Arg::Int(v) => v.to_string(),
            Arg::Float(v) => format!("{v:?}"),
            Arg::Str(s) => format!("'{s}'"),
            Arg::Ints(v) => format!("{v:?}"),
            Arg::Floats(v) => format!("{v:?}"),
        }
    }

    /// The sizes of an int or a sequence of ints, `n` of them (one given for all): torch's `_single`, `_pair`.
    fn sizes(&self, name: &str, n: usize) -> Result<Vec<usize>> {
        let v = match self {
            Arg::Int(v) => vec![*v; n],
            Arg::Ints(v) if v.len() == 1 => vec![v[0]; n],
            Arg::Ints(v) if v.len() == n => v.clone(),
            Arg::Ints(_) => {
                return Err(Error::Runtime(format!(
                    "expected {name} to be a single integer value or a list of {n} values, but got {name}={}",
                    self.shown()
                )))
            }
            other => return Err(Error::Dtype(format!("{name} must be an int or {n} ints, not {}", other.shown()))),
        };
        v.into_iter().map(|x| size(name, x, || self.shown())).collect()
    }
}

/// `v` as a size: negative values and values past this platform's address space (wasm32's 2^32 − 1) are refused.
fn size(name: &str, v: i64, shown: impl Fn() -> String) -> Result<usize> {
    if v < 0 {
        return Err(Error::Runtime(format!("{name} must not be negative, but got {name}={}", shown())));
    }
    usize::try_from(v).map_err(|_| Error::Runtime(format!("{name} is too large for this platform: {name}={}", shown())))
}

/// How a described function's option arrives from an `Arg`: `name` is torch's, for the messages.
pub trait Kind {
    type Out;
    fn convert(name: &str, arg: Arg) -> Result<Self::Out>;
}

/// An int or two (height, width).
pub enum Pair {}

impl Kind for Pair {
    type Out = [usize; 2];
    fn convert(name: &str, arg: Arg) -> Result<[usize; 2]> {
        let v = arg.sizes(name, 2)?;
        Ok([v[0], v[1]])
    }
}

/// A `Pair`, or None (an empty sequence too, as torch's pools read `stride=[]`) for the function's own default.
pub enum MaybePair {}

impl Kind for MaybePair {
    type Out = Option<[usize; 2]>;
    fn convert(name: &str, arg: Arg) -> Result<Option<[usize; 2]>> {
        match arg {
            Arg::None => Ok(None),
            Arg::Ints(v) if v.is_empty() => Ok(None),
            given => Pair::convert(name, given).map(Some),
        }
    }
}

/// An int, or a sequence of one.
pub enum Single {}

impl Kind for Single {
    type Out = usize;
    fn convert(name: &str, arg: Arg) -> Result<usize> {
        Ok(arg.sizes(name, 1)?[0])
    }
}

/// An int or a sequence of ints, as given (F.pad's amounts, which may be negative).
pub enum Ints {}

impl Kind for Ints {
    type Out = Vec<i64>;
    fn convert(name: &str, arg: Arg) -> Result<Vec<i64>> {
        match arg {
            Arg::Int(v) => Ok(vec![v]),
            Arg::Ints(v) => Ok(v),
            other => Err(Error::Dtype(format!("{name} must be ints, not {}", other.shown()))),
        }
    }
}

/// A non-negative int (a count: groups).
pub enum Count {}

impl Kind for Count {
    type Out = usize;
    fn convert(name: &str, arg: Arg) -> Result<usize> {
        match arg {
            Arg::Int(v) => size(name, v, || v.to_string()),
            other => Err(Error::Dtype(format!("{name} must be an int, not {}", other.shown()))),
        }
    }
}

/// A shape: an int (one dim) or a sequence of non-negative ints.
pub enum Shape {}

impl Kind for Shape {
    type Out = Vec<usize>;
    fn convert(name: &str, arg: Arg) -> Result<Vec<usize>> {
        let n = match &arg {
            Arg::Ints(v) => v.len(),
            _ => 1,
        };
        arg.sizes(name, n)
    }
}

/// A 2-d convolution's padding: "same", "valid", or a `Pair`.
pub enum Padding2 {}

impl Kind for Padding2 {
    type Out = Padding;
    fn convert(name: &str, arg: Arg) -> Result<Padding> {
        padding(name, arg, |a| Pair::convert(name, a))
    }
}

/// A 1-d convolution's padding: "same", "valid", or a `Single` (the width's; the height is conv1d's added 1).
pub enum Padding1 {}

impl Kind for Padding1 {
    type Out = Padding;
    fn convert(name: &str, arg: Arg) -> Result<Padding> {
        padding(name, arg, |a| Ok([0, Single::convert(name, a)?]))
    }
}

fn padding(name: &str, arg: Arg, explicit: impl Fn(Arg) -> Result<[usize; 2]>) -> Result<Padding> {
    match arg {
        Arg::Str(s) if s == "same" => Ok(Padding::Same),
        Arg::Str(s) if s == "valid" => Ok(Padding::Valid),
        Arg::Str(s) => Err(Error::Runtime(format!("Invalid padding string: '{s}'"))),
        other => Ok(Padding::Explicit(explicit(other).map_err(|e| match e {
            Error::Dtype(_) => Error::Dtype(format!("{name} must be an int, a tuple of ints, 'same' or 'valid'")),
            e => e,
        })?)),
    }
}

/// None, a number for every spatial dim, or one number per dim (interpolate's size and scale_factor).
#[derive(Clone, Debug, PartialEq)]
pub enum PerDim {
    None,
    All(f64),
    Each(Vec<f64>),
}

impl Kind for PerDim {
    type Out = PerDim;
    fn convert(name: &str, arg: Arg) -> Result<PerDim> {
        Ok(match arg {
            Arg::None => PerDim::None,
            Arg::Int(v) => PerDim::All(v as f64),
            Arg::Float(v) => PerDim::All(v),
            Arg::Ints(v) => PerDim::Each(v.into_iter().map(|x| x as f64).collect()),
            Arg::Floats(v) => PerDim::Each(v),
            Arg::Str(s) => {
                return Err(Error::Dtype(format!("{name} must be a number or a sequence of them, not '{s}'")))
            }
        })
    }
}

impl PerDim {
    /// One value per each of `n` dims, or None.
    pub fn per_dim(&self, name: &str, n: usize) -> Result<Option<Vec<f64>>> {
        match self {
            PerDim::None => Ok(None),
            PerDim::All(v) => Ok(Some(vec![*v; n])),
            PerDim::Each(v) if v.len() == n => Ok(Some(v.clone())),
            PerDim::Each(v) => Err(Error::Value(format!(
                "Input and {name} must have the same number of spatial dimensions, but got input with spatial \
                 dimensions of {n} and {name} of {v:?}. Please provide input tensor in (N, C, d1, d2, ...,dK) format \
                 and {name} in (o1, o2, ...,oK) format."
            ))),
        }
    }
}

/// `described_arg!(Kind, name, arg, default tokens)`: `arg` (an `Arg`, None where left out) converted by `Kind`, the row's
/// default (torch's literal, or `None`) standing in for None.
#[macro_export]
macro_rules! described_arg {
    ($kind:ident, $name:expr, $arg:expr, None) => {
        <$crate::nn::args::$kind as $crate::nn::args::Kind>::convert($name, $arg)
    };
    ($kind:ident, $name:expr, $arg:expr, $($default:tt)+) => {
        <$crate::nn::args::$kind as $crate::nn::args::Kind>::convert(
            $name,
            $arg.or($crate::nn::args::Arg::from($($default)+)),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_their_errors() {
        assert_eq!(Pair::convert("stride", Arg::Int(2)).ok(), Some([2, 2]));
        assert_eq!(Pair::convert("stride", Arg::Ints(vec![3])).ok(), Some([3, 3]));
        assert_eq!(Pair::convert("stride", Arg::Ints(vec![1, 2])).ok(), Some([1, 2]));
        let three = Pair::convert("stride", Arg::Ints(vec![1, 2, 3]));
        assert!(matches!(three, Err(Error::Runtime(m)) if m.contains("list of 2 values") && m.contains("[1, 2, 3]")));
        assert!(matches!(Pair::convert("padding", Arg::Int(-1)), Err(Error::Runtime(m)) if m.contains("negative")));
        assert!(matches!(Pair::convert("stride", Arg::Float(2.0)), Err(Error::Dtype(_))));
        assert_eq!(MaybePair::convert("stride", Arg::Ints(vec![])).ok(), Some(None));
        assert_eq!(Single::convert("stride", Arg::Ints(vec![4])).ok(), Some(4));
        assert!(Single::convert("stride", Arg::Ints(vec![1, 2])).is_err());
        assert_eq!(Shape::convert("normalized_shape", Arg::Int(5)).ok(), Some(vec![5]));
        assert_eq!(Shape::convert("normalized_shape", Arg::Ints(vec![2, 3])).ok(), Some(vec![2, 3]));
        assert_eq!(Ints::convert("pad", Arg::Ints(vec![1, -2])).ok(), Some(vec![1, -2]));
        assert!(matches!(Ints::convert("pad", Arg::Floats(vec![1.5])), Err(Error::Dtype(_))));
    }

    #[test]
    fn padding_strings_and_defaults() {
        assert_eq!(Padding2::convert("padding", Arg::from("same")).ok(), Some(Padding::Same));
        assert_eq!(Padding1::convert("padding", Arg::Int(2)).ok(), Some(Padding::Explicit([0, 2])));
        assert!(matches!(Padding2::convert("padding", Arg::from("full")), Err(Error::Runtime(_))));
        assert_eq!(crate::described_arg!(Pair, "dilation", Arg::None, 1).ok(), Some([1, 1]));
        assert_eq!(crate::described_arg!(MaybePair, "stride", Arg::None, None).ok(), Some(None));
        assert_eq!(PerDim::All(2.0).per_dim("scale_factor", 2).ok(), Some(Some(vec![2.0, 2.0])));
        assert!(PerDim::Each(vec![2.0]).per_dim("size", 2).is_err());
    }
}
