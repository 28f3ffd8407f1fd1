//! Reading PyTorch checkpoints (`torch.save`'s zip: a pickle plus one raw file per storage) without torch and
//! without running pickle code. The pickle is interpreted by a small machine that knows only plain containers,
//! numbers, strings, tensor-rebuild records and storages; any other callable (os.system, eval, …) is refused by
//! name before anything is called. Zip entries must be stored uncompressed, as torch writes them, and side by
//! side, so a compressed entry or entries sharing one payload (zip bombs) are refused too. Containers and tensors
//! are shared as pickle shares them (a memo entry is the object itself, so what is appended after it was memoised
//! shows through every reference); the [`Value`] returned gives a shared one once and refers to it elsewhere
//! ([`Value::Shared`], [`Value::Ref`]), so a front end returns one object for it, as `torch.load` does. Containers
//! nest at most [`MAX_DEPTH`] deep (a container holding itself never ends, so it is refused there), and the values
//! pickle's arguments copy may not add more than [`MAX_COPIED`] to those the file spells out ("billion laughs").

use std::collections::{HashMap, HashSet};
use std::io::{Cursor, Read};

use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::view::{checked_numel, View};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// What a checkpoint holds, in Python's terms.
#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    /// Insertion-ordered pairs (dict and OrderedDict).
    Dict(Vec<(Value, Value)>),
    Tensor(Tensor),
    /// A container or tensor the checkpoint holds in more than one place, where it appears first (in the order of
    /// a depth-first walk: list items in order, a dict's key before its value), with the id its other places name.
    Shared(usize, Box<Value>),
    /// Another place of the `Shared` value with this id: the same object.
    Ref(usize),
    /// Internal: a storage's dtype and bytes, before a rebuild record views it.
    Storage(DType, std::sync::Arc<Vec<u8>>),
    /// Internal: a callable the reader allows.
    Global(Global),
    /// Internal: a MARK on the stack.
    Mark,
}

/// The only callables a checkpoint may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Global {
    OrderedDict,
    RebuildTensorV2,
    RebuildParameter,
    StorageType(DType),
}

/// How deep containers may nest (torch's checkpoints nest a few levels; Python's own recursion limit is 1,000).
pub const MAX_DEPTH: usize = 1000;

/// How many values the copies of shared values may add in all (a state_dict's shared values are tensors and strings,
/// one value each); past it the file is refused rather than expanded ("billion laughs").
pub const MAX_COPIED: usize = 1 << 20;

fn bad(msg: impl Into<String>) -> Error {
    Error::Io(format!("not a loadable PyTorch checkpoint: {}", msg.into()))
}

fn global(module: &str, name: &str) -> Result<Global> {
    Ok(match (module, name) {
        ("collections", "OrderedDict") => Global::OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2") => Global::RebuildTensorV2,
        ("torch._utils", "_rebuild_parameter") => Global::RebuildParameter,
        ("torch", "FloatStorage") => Global::StorageType(DType::F32),
        ("torch", "DoubleStorage") => Global::StorageType(DType::F64),
        ("torch", "HalfStorage") => Global::StorageType(DType::F16),
        ("torch", "BFloat16Storage") => Global::StorageType(DType::BF16),
        ("torch", "IntStorage") => Global::StorageType(DType::I32),
        ("torch", "LongStorage") => Global::StorageType(DType::I64),
        ("torch", "BoolStorage") => Global::StorageType(DType::Bool),
        _ => {
            return Err(Error::Io(format!(
                "refusing to load: the checkpoint names {module}.{name}, which a tensor checkpoint never needs \
                 (only containers, tensors and storages are read; nothing in the file is executed)"
            )))
        }
    })
}

/// The zip's entries by name (each stored uncompressed), and the pickle's name.
fn entries(bytes: &[u8]) -> Result<(HashMap<String, Vec<u8>>, String)> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| bad(format!("not a zip archive ({e})")))?;
    let mut out = HashMap::new();
    let mut pickle = None;
    // Stored entries lie side by side, so together they fit in the file; entries that share a payload do not.
    let mut total: usize = 0;
    for i in 0..zip.len() {
        // Raw access: nothing is decompressed, and only stored entries are accepted below.
        let mut f = zip.by_index_raw(i).map_err(|e| bad(format!("entry {i}: {e}")))?;
        if f.compression() != zip::CompressionMethod::Stored {
            return Err(bad(format!("entry {} is compressed; torch stores checkpoint entries uncompressed", f.name())));
        }
        let size = usize::try_from(f.size()).unwrap_or(usize::MAX);
        total = total.saturating_add(size);
        if total > bytes.len() {
            return Err(bad(format!(
                "its entries claim {total} bytes or more in a {}-byte file (entries that share data)",
                bytes.len()
            )));
        }
        let mut data = Vec::with_capacity(size);
        f.read_to_end(&mut data).map_err(|e| bad(format!("entry {}: {e}", f.name())))?;
        let name = f.name().to_string();
        if name.ends_with("/data.pkl") {
            pickle = Some(name.clone());
        }
        if name.ends_with("/byteorder") && data != b"little" {
            return Err(bad("the storages are big-endian"));
        }
        out.insert(name, data);
    }
    let pickle = pickle.ok_or_else(|| bad("no data.pkl in the archive (a legacy or non-torch file)"))?;
    Ok((out, pickle))
}

/// The object a `torch.save` zip holds, with tensors created on `device`.
pub fn load_torch(bytes: &[u8], device: DeviceId) -> Result<Value> {
    let (files, pickle) = entries(bytes)?;
    let prefix = pickle.trim_end_matches("data.pkl").to_string();
    let code = &files[&pickle];
    let left = code.len().saturating_add(MAX_COPIED);
    let mut m = Machine { code, at: 0, stack: Vec::new(), memo: HashMap::new(), nodes: Vec::new(), left };
    m.run(&|key: &str| files.get(&format!("{prefix}data/{key}")).cloned(), device)
}

/// A value on the machine's stack or in its memo: a plain value, or one of the machine's containers, which every
/// reference shares.
#[derive(Clone)]
enum Item {
    Leaf(Value),
    Node(usize),
}

/// A container as the machine builds it; its items may be other containers, by index (no container owns another,
/// so none is dropped by recursion however deep a hostile file nests them).
enum Node {
    List(Vec<Item>),
    Tuple(Vec<Item>),
    /// A rebuilt tensor: a node, so that every reference is the same tensor.
    Object(Value),
    Dict(Vec<(Item, Item)>),
}

struct Machine<'a> {
    code: &'a [u8],
    at: usize,
    stack: Vec<Item>,
    memo: HashMap<u32, Item>,
    nodes: Vec<Node>,
    /// How many more values the copies into `Value`s may make: the pickle's length (each value the file spells costs
    /// a byte at least) plus MAX_COPIED.
    left: usize,
}

/// The final value's walk: how many references reach each node, and which shared nodes it has given already.
struct Sharing {
    refs: HashMap<usize, usize>,
    given: HashSet<usize>,
}

impl Machine<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.code.len()).ok_or_else(|| bad("truncated pickle"))?;
        let s = &self.code[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn line(&mut self) -> Result<String> {
        let rest = &self.code[self.at..];
        let n = rest.iter().position(|&c| c == b'\n').ok_or_else(|| bad("unterminated GLOBAL"))?;
        let s = String::from_utf8(rest[..n].to_vec()).map_err(|_| bad("GLOBAL is not UTF-8"))?;
        self.at += n + 1;
        Ok(s)
    }

    fn string(&mut self, n: usize) -> Result<Value> {
        let b = self.take(n)?.to_vec();
        Ok(Value::Str(String::from_utf8(b).map_err(|_| bad("a string is not UTF-8"))?))
    }

    fn push(&mut self, value: Value) {
        self.stack.push(Item::Leaf(value));
    }

    fn node(&mut self, node: Node) {
        self.nodes.push(node);
        self.stack.push(Item::Node(self.nodes.len() - 1));
    }

    fn pop(&mut self) -> Result<Item> {
        self.stack.pop().ok_or_else(|| bad("stack underflow"))
    }

    /// The top of the stack as a plain value (a copy, counted against `left`).
    fn pop_value(&mut self) -> Result<Value> {
        let item = self.pop()?;
        self.value(&item, 0, None)
    }

    fn pop_mark(&mut self) -> Result<Vec<Item>> {
        let at = self.stack.iter().rposition(|h| matches!(h, Item::Leaf(Value::Mark))).ok_or_else(|| bad("no MARK"))?;
        let items = self.stack.split_off(at + 1);
        self.stack.pop();
        Ok(items)
    }

    /// Add `items` to the container on top of the stack: a list takes them, a dict takes them as key, value pairs.
    fn extend_top(&mut self, items: Vec<Item>, dict: bool) -> Result<()> {
        let Some(&Item::Node(top)) = self.stack.last() else {
            return Err(bad(if dict { "SETITEM on a non-dict" } else { "APPEND to a non-list" }));
        };
        match (&mut self.nodes[top], dict) {
            (Node::Dict(d), true) => {
                if !items.len().is_multiple_of(2) {
                    return Err(bad("SETITEMS with an odd number of items"));
                }
                let mut it = items.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    d.push((k, v));
                }
            }
            (Node::List(l), false) => l.extend(items),
            (_, true) => return Err(bad("SETITEM on a non-dict")),
            (_, false) => return Err(bad("APPEND to a non-list")),
        }
        Ok(())
    }

    fn memo_put(&mut self, k: u32) -> Result<()> {
        let v = self.stack.last().ok_or_else(|| bad("stack underflow"))?.clone();
        self.memo.insert(k, v);
        Ok(())
    }

    /// A memo reference: the object itself, as pickle shares it (a container stays one container).
    fn memo_get(&mut self, k: u32) -> Result<()> {
        let v = self.memo.get(&k).cloned().ok_or_else(|| bad(format!("memo {k} is not set")))?;
        self.stack.push(v);
        Ok(())
    }

    /// How many references reach each node from `item` (a node reached once is walked once), without recursion.
    fn references(&self, item: &Item) -> HashMap<usize, usize> {
        let mut refs = HashMap::new();
        let mut todo = vec![item];
        while let Some(item) = todo.pop() {
            let Item::Node(i) = item else { continue };
            let n = refs.entry(*i).or_insert(0);
            *n += 1;
            if *n > 1 {
                continue;
            }
            match &self.nodes[*i] {
                Node::List(items) | Node::Tuple(items) => todo.extend(items),
                Node::Dict(pairs) => todo.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
                Node::Object(_) => {}
            }
        }
        refs
    }

    /// `item` as a plain value at nesting `depth`, within MAX_DEPTH levels and the values `left`. Without `sharing`
    /// (pickle's arguments) shared containers are copied; with it (the checkpoint's value) a node that more than one
    /// reference reaches is given once, as `Shared`, and as `Ref` wherever it appears again.
    fn value(&mut self, item: &Item, depth: usize, mut sharing: Option<&mut Sharing>) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(bad(format!("containers nest deeper than {MAX_DEPTH} levels (or contain themselves)")));
        }
        self.left = self.left.checked_sub(1).ok_or_else(|| {
            bad(format!("its shared values copy into more than {MAX_COPIED} values beyond the file's (a pickle bomb)"))
        })?;
        let i = match item {
            Item::Leaf(v) => return Ok(v.clone()),
            Item::Node(i) => *i,
        };
        if sharing.as_ref().is_some_and(|s| s.given.contains(&i)) {
            return Ok(Value::Ref(i));
        }
        // The items are cloned first: a container that holds itself recurses until MAX_DEPTH refuses it.
        let mut values = |items: &[Item], this: &mut Self| -> Result<Vec<Value>> {
            items.iter().map(|x| this.value(x, depth + 1, sharing.as_deref_mut())).collect()
        };
        let v = match &self.nodes[i] {
            Node::List(items) => Value::List(values(&items.clone(), self)?),
            Node::Tuple(items) => Value::Tuple(values(&items.clone(), self)?),
            Node::Dict(pairs) => {
                let flat: Vec<Item> = pairs.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).collect();
                let mut it = values(&flat, self)?.into_iter();
                let mut out = Vec::with_capacity(flat.len() / 2);
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    out.push((k, v));
                }
                Value::Dict(out)
            }
            Node::Object(v) => v.clone(),
        };
        match sharing {
            Some(s) if s.refs.get(&i).is_some_and(|&n| n > 1) => {
                s.given.insert(i);
                Ok(Value::Shared(i, Box::new(v)))
            }
            _ => Ok(v),
        }
    }

    fn run(&mut self, storage: &dyn Fn(&str) -> Option<Vec<u8>>, device: DeviceId) -> Result<Value> {
        loop {
            let op = self.u8()?;
            match op {
                0x80 => {
                    self.u8()?; // PROTO
                }
                0x95 => {
                    self.take(8)?; // FRAME
                }
                b'}' => self.node(Node::Dict(Vec::new())),
                b']' => self.node(Node::List(Vec::new())),
                b')' => self.node(Node::Tuple(Vec::new())),
                b'(' => self.push(Value::Mark),
                b'N' => self.push(Value::None),
                0x88 => self.push(Value::Bool(true)),
                0x89 => self.push(Value::Bool(false)),
                b'K' => {
                    let v = self.u8()? as i64;
                    self.push(Value::Int(v));
                }
                b'M' => {
                    let b = self.take(2)?;
                    let v = u16::from_le_bytes([b[0], b[1]]) as i64;
                    self.push(Value::Int(v));
                }
                b'J' => {
                    let v = self.u32()? as i32 as i64;
                    self.push(Value::Int(v));
                }
                0x8a => {
                    let n = self.u8()? as usize;
                    let b = self.take(n)?.to_vec();
                    if n > 8 {
                        return Err(bad("an integer wider than 64 bits"));
                    }
                    let mut v: i64 = 0;
                    for (i, &x) in b.iter().enumerate() {
                        v |= (x as i64) << (8 * i);
                    }
                    if n > 0 && n < 8 && b[n - 1] & 0x80 != 0 {
                        v -= 1i64 << (8 * n); // sign-extend
                    }
                    self.push(Value::Int(v));
                }
                b'G' => {
                    let b = self.take(8)?;
                    let v = f64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                    self.push(Value::Float(v));
                }
                b'X' => {
                    let n = self.u32()? as usize;
                    let s = self.string(n)?;
                    self.push(s);
                }
                0x8c => {
                    let n = self.u8()? as usize;
                    let s = self.string(n)?;
                    self.push(s);
                }
                b'q' => {
                    let k = self.u8()? as u32;
                    self.memo_put(k)?;
                }
                b'r' => {
                    let k = self.u32()?;
                    self.memo_put(k)?;
                }
                0x94 => self.memo_put(self.memo.len() as u32)?,
                b'h' | b'j' => {
                    let k = if op == b'h' { self.u8()? as u32 } else { self.u32()? };
                    self.memo_get(k)?;
                }
                b't' => {
                    let items = self.pop_mark()?;
                    self.node(Node::Tuple(items));
                }
                0x85..=0x87 => {
                    let n = (op - 0x84) as usize;
                    if self.stack.len() < n {
                        return Err(bad("stack underflow"));
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    self.node(Node::Tuple(items));
                }
                b's' => {
                    let v = self.pop()?;
                    let k = self.pop()?;
                    self.extend_top(vec![k, v], true)?;
                }
                b'u' => {
                    let items = self.pop_mark()?;
                    self.extend_top(items, true)?;
                }
                b'a' => {
                    let v = self.pop()?;
                    self.extend_top(vec![v], false)?;
                }
                b'e' => {
                    let items = self.pop_mark()?;
                    self.extend_top(items, false)?;
                }
                b'c' => {
                    let module = self.line()?;
                    let name = self.line()?;
                    self.push(Value::Global(global(&module, &name)?));
                }
                0x93 => {
                    let (Value::Str(name), Value::Str(module)) = (self.pop_value()?, self.pop_value()?) else {
                        return Err(bad("STACK_GLOBAL needs two strings"));
                    };
                    self.push(Value::Global(global(&module, &name)?));
                }
                b'Q' => {
                    let pid = self.pop_value()?;
                    let v = persistent(pid, storage)?;
                    self.push(v);
                }
                b'R' => {
                    let args = self.pop_value()?;
                    let f = self.pop_value()?;
                    match reduce(f, args, device)? {
                        // An OrderedDict: a container its SETITEMS fill.
                        Value::Dict(_) => self.node(Node::Dict(Vec::new())),
                        v @ Value::Tensor(_) => self.node(Node::Object(v)),
                        v => self.push(v),
                    }
                }
                b'b' => {
                    // BUILD sets attributes of the object below it: for a state_dict that is torch's `_metadata`
                    // (layer versions), plain data built by the ops above. Nothing is called; the state is dropped.
                    let state = self.pop()?;
                    match state {
                        Item::Leaf(Value::None) => {}
                        Item::Node(i) if matches!(self.nodes[i], Node::Dict(_) | Node::Tuple(_)) => {}
                        _ => return Err(bad("BUILD with a state that is not plain data")),
                    }
                }
                b'.' => {
                    let item = self.pop()?;
                    let mut sharing = Sharing { refs: self.references(&item), given: HashSet::new() };
                    return self.value(&item, 0, Some(&mut sharing));
                }
                other => return Err(bad(format!("pickle opcode 0x{other:02x} is not part of a tensor checkpoint"))),
            }
        }
    }
}

fn persistent(pid: Value, storage: &dyn Fn(&str) -> Option<Vec<u8>>) -> Result<Value> {
    let Value::Tuple(t) = pid else { return Err(bad("persistent id is not a tuple")) };
    match t.as_slice() {
        [Value::Str(kind), Value::Global(Global::StorageType(dtype)), Value::Str(key), _, Value::Int(numel)]
            if kind == "storage" =>
        {
            let bytes = storage(key).ok_or_else(|| bad(format!("storage {key} is missing from the archive")))?;
            let want = (*numel as usize).checked_mul(dtype.itemsize()).ok_or_else(|| bad("storage size overflows"))?;
            if *numel < 0 || bytes.len() != want {
                return Err(bad(format!(
                    "storage {key} holds {} bytes but its record says {numel} {} elements",
                    bytes.len(),
                    dtype.name()
                )));
            }
            Ok(Value::Storage(*dtype, std::sync::Arc::new(bytes)))
        }
        _ => Err(bad("a persistent id that is not a storage record")),
    }
}

fn ints(v: &Value, what: &str) -> Result<Vec<i64>> {
    match v {
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|x| match x {
                Value::Int(i) => Ok(*i),
                _ => Err(bad(format!("{what} holds a non-integer"))),
            })
            .collect(),
        _ => Err(bad(format!("{what} is not a tuple"))),
    }
}

fn reduce(f: Value, args: Value, device: DeviceId) -> Result<Value> {
    let Value::Tuple(args) = args else { return Err(bad("REDUCE arguments are not a tuple")) };
    match f {
        Value::Global(Global::OrderedDict) => Ok(Value::Dict(Vec::new())),
        Value::Global(Global::RebuildTensorV2) => {
            let (Some(Value::Storage(dtype, bytes)), Some(Value::Int(offset)), Some(size), Some(stride)) =
                (args.first(), args.get(1), args.get(2), args.get(3))
            else {
                return Err(bad("a tensor record without storage, offset, size and stride"));
            };
            let shape: Vec<usize> = ints(size, "size")?
                .into_iter()
                .map(|d| usize::try_from(d).map_err(|_| bad("negative size")))
                .collect::<Result<_>>()?;
            let strides: Vec<isize> = ints(stride, "stride")?.into_iter().map(|s| s as isize).collect();
            if strides.len() != shape.len() || *offset < 0 || strides.iter().any(|&s| s < 0) {
                return Err(bad("a tensor record with inconsistent size, stride or offset"));
            }
            checked_numel(&shape)?;
            let n = bytes.len() / dtype.itemsize();
            let view = View { shape: shape.clone(), strides, offset: *offset as usize };
            if view.numel() > 0 {
                let last = view.offset
                    + view.shape.iter().zip(&view.strides).map(|(&d, &s)| (d - 1) * s as usize).sum::<usize>();
                if last >= n {
                    return Err(bad(format!("a tensor of size {shape:?} reads past its storage of {n} elements")));
                }
            }
            let base = Tensor::from_bytes(bytes.to_vec(), &[n], *dtype, device)?;
            // A view of its storage, as torch loads it: an expanded record (stride 0) stays as small as its file.
            Ok(Value::Tensor(base.with_view(view).detach()))
        }
        Value::Global(Global::RebuildParameter) => match args.into_iter().next() {
            Some(Value::Tensor(t)) => Ok(Value::Tensor(t)),
            _ => Err(bad("a parameter record without a tensor")),
        },
        _ => Err(bad("REDUCE of something that is not an allowed callable")),
    }
}
