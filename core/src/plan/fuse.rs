//! Planner fusion: an elementwise node (float32 unary and binary ops, comparisons of float32 values, `where` over
//! float32 values, casts among float32, float16, bfloat16 and bool), with the elementwise nodes feeding it that
//! nothing else holds, runs as one `Op::Fused` kernel. Each step of the program computes what its primitive computes,
//! so fused and unfused runs give the same bytes; `VKML_FUSION=0` turns fusion off.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::{Arc, OnceLock};

use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::node::{Node, Src};
use crate::graph::op::{fits, held, BinaryOp, BinaryRule, Op, Step, UnaryOp, FUSED_DEPTH, FUSED_INPUTS, FUSED_WORDS};

use super::holders::Holders;

/// What fusion decided for one realization.
#[derive(Default)]
pub struct Fusion {
    /// Nodes computed inside another node's program: they get no kernel of their own and stay unrealized.
    pub inlined: HashSet<u64>,
    /// The last node of each group -> its program and the sources the program reads (input k is `srcs[k]`).
    pub programs: HashMap<u64, (Arc<[Step]>, Vec<Src>)>,
}

impl Fusion {
    /// The sources the kernel of pending node `id` reads: its program's inputs, else its own sources.
    pub fn reads<'a>(&'a self, id: u64, holders: &'a Holders) -> &'a [Src] {
        match self.programs.get(&id) {
            Some((_, inputs)) => inputs,
            None => holders.srcs.get(&id).map_or(&[][..], Vec::as_slice),
        }
    }
}

/// Whether the planner fuses (`VKML_FUSION=0` at start turns it off, to compare).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("VKML_FUSION").as_deref() != Ok("0"))
}

/// A program under construction: sources not (yet) inlined are leaves.
enum Tree {
    Leaf(Src),
    Const(f32),
    Unary(UnaryOp, Box<Tree>),
    Binary(BinaryOp, Box<Tree>, Box<Tree>),
    /// Condition, then the values where it holds and where it does not.
    Where(Box<[Tree; 3]>),
    Cast(DType, Box<Tree>),
}

/// The float32 value a `Full` node holds, as the backends write it (an integer rounds once, straight from i64).
fn constant(node: &Node) -> Option<f32> {
    match node.op {
        Op::Full(s) if node.dtype == DType::F32 => Some(match s {
            Scalar::Float(f) => f as f32,
            Scalar::Int(i) => i as f32,
            Scalar::Bool(b) => f32::from(u8::from(b)),
        }),
        _ => None,
    }
}

/// A node a program can compute: a float32 unary or binary op of float32 sources, a comparison of float32 sources,
/// `where` over float32 values, or a cast between dtypes a program's values hold exactly.
fn elementwise(node: &Node, srcs: &[Src]) -> bool {
    let (f32, out) = (|s: &Src| s.node.dtype == DType::F32, node.dtype);
    let local = srcs.iter().all(|s| s.node.device == node.device);
    local
        && match srcs {
            [x] if matches!(node.op, Op::Unary(_)) => out == DType::F32 && f32(x),
            [x] if matches!(node.op, Op::Cast) => held(out) && held(x.node.dtype),
            [x, y] if matches!(node.op, Op::Binary(op) if op.rule() == BinaryRule::Compare) => {
                f32(x) && f32(y) && out == DType::Bool
            }
            [x, y] if matches!(node.op, Op::Binary(_)) => f32(x) && f32(y) && out == DType::F32,
            [c, a, b] if matches!(node.op, Op::Where) => {
                c.node.dtype == DType::Bool && f32(a) && f32(b) && out == DType::F32
            }
            _ => false,
        }
}

/// The graph of one realization, as fusion sees it.
struct Graph<'h> {
    srcs: &'h HashMap<u64, Vec<Src>>,
    /// Nodes that may be computed inside a reader's program: pending, not asked for, held by nothing else, and
    /// read once by a pending node or `shared`.
    private: HashSet<u64>,
    /// Nodes read more than once that each program reading them may compute again: one elementwise step over values
    /// that exist anyway (no program computes its sources), every reader elementwise and reading it whole (a conv's
    /// bias sum, read by relu's mask, maximum and select). Computed inside each reader, such a node is never stored;
    /// where a kernel reads it after all, it also runs on its own (`plan` checks).
    shared: HashSet<u64>,
}

impl<'h> Graph<'h> {
    fn new(order: &[Arc<Node>], holders: &'h Holders) -> Graph<'h> {
        let uses = |id: &u64| holders.uses.get(id).copied().unwrap_or(0);
        let fusable = |n: &Node| holders.srcs.get(&n.id).is_some_and(|srcs| elementwise(n, srcs));
        let computed =
            |s: &Src| constant(&s.node).is_none() && holders.internal.contains(&s.node.id) && fusable(&s.node);
        let mut shared: HashSet<u64> = order
            .iter()
            .filter(|n| uses(&n.id) > 1 && holders.internal.contains(&n.id) && fusable(n))
            .filter(|n| holders.srcs.get(&n.id).is_some_and(|srcs| !srcs.iter().any(computed)))
            .map(|n| n.id)
            .collect();
        for reader in order {
            let whole = fusable(reader);
            for s in holders.srcs.get(&reader.id).into_iter().flatten() {
                if !(whole && s.view.is_contiguous_of(&s.node.shape)) {
                    shared.remove(&s.node.id);
                }
            }
        }
        let mut private: HashSet<u64> = holders.internal.iter().filter(|id| uses(id) == 1).copied().collect();
        private.extend(&shared);
        Graph { srcs: &holders.srcs, private, shared }
    }

    /// `node` over its sources as leaves (constants where a source is a float32 `Full`).
    fn shallow(&self, node: &Node) -> Option<Tree> {
        let srcs = self.srcs.get(&node.id)?;
        if !elementwise(node, srcs) {
            return None;
        }
        let leaf = |s: &Src| Box::new(constant(&s.node).map_or_else(|| Tree::Leaf(s.clone()), Tree::Const));
        match (&node.op, srcs.as_slice()) {
            (Op::Unary(op), [x]) => Some(Tree::Unary(*op, leaf(x))),
            (Op::Binary(op), [x, y]) => Some(Tree::Binary(*op, leaf(x), leaf(y))),
            (Op::Where, [c, a, b]) => Some(Tree::Where(Box::new([*leaf(c), *leaf(a), *leaf(b)]))),
            (Op::Cast, [x]) => Some(Tree::Cast(node.dtype, leaf(x))),
            _ => None,
        }
    }

    /// The private float32 `Full` sources of node `id`: the program holds them as constants, so they need no kernel.
    fn constants_of(&self, id: u64) -> Vec<u64> {
        let srcs = self.srcs.get(&id).into_iter().flatten();
        srcs.filter(|s| constant(&s.node).is_some() && self.private.contains(&s.node.id)).map(|s| s.node.id).collect()
    }

    /// `tree` with every private elementwise node below it inlined, the inlined nodes (and their constants) pushed to
    /// `members`; None once it passes the kernel's words in nodes, where it cannot fit whole.
    fn whole(&self, tree: &mut Tree, members: &mut Vec<u64>, nodes: &mut usize) -> Option<()> {
        *nodes += 1;
        if *nodes > FUSED_WORDS {
            return None;
        }
        match tree {
            Tree::Leaf(s) if self.inlinable(s) => {
                if let Some(mut grown) = self.shallow(&s.node) {
                    members.push(s.node.id);
                    members.extend(self.constants_of(s.node.id));
                    self.whole(&mut grown, members, nodes)?;
                    *tree = grown;
                }
            }
            Tree::Leaf(_) | Tree::Const(_) => {}
            Tree::Unary(_, x) | Tree::Cast(_, x) => self.whole(x, members, nodes)?,
            Tree::Binary(_, x, y) => {
                self.whole(x, members, nodes)?;
                self.whole(y, members, nodes)?;
            }
            Tree::Where(xs) => {
                for x in xs.iter_mut() {
                    self.whole(x, members, nodes)?;
                }
            }
        }
        Some(())
    }

    /// `node` with every private elementwise node below it inlined, and those nodes (and their constants), where
    /// some are and the whole fits.
    fn entire(&self, node: &Node) -> Option<(Tree, Vec<u64>)> {
        let (mut tree, mut all) = (self.shallow(node)?, Vec::new());
        self.whole(&mut tree, &mut all, &mut 0)?;
        (!all.is_empty() && tree.fits()).then_some((tree, all))
    }

    /// `tree` grown one leaf at a time, the first whose node still fits each time, until none does; the inlined nodes
    /// (and their constants) pushed to `members`.
    fn grow(&self, tree: &mut Tree, members: &mut Vec<u64>) {
        let mut tried: HashSet<u64> = HashSet::default();
        let mut leaves = Vec::new();
        loop {
            leaves.clear();
            let root = Path { turns: 0, depth: 0 };
            tree.leaves(root, &|s: &Src| !tried.contains(&s.node.id) && self.inlinable(s), &mut leaves);
            // The first leaf whose node, put in its place, still fits (tried in place and put back if not).
            let next = leaves.iter().find(|(path, leaf)| {
                if !tried.insert(leaf.id) {
                    return false;
                }
                let Some(grown) = self.shallow(leaf) else { return false };
                let leaf = std::mem::replace(tree.at(*path), grown);
                let fits = tree.fits();
                if !fits {
                    *tree.at(*path) = leaf;
                }
                fits
            });
            let Some((_, leaf)) = next else { return };
            // A leaf that did not fit may now: this one's inputs may have been the others' too.
            tried.clear();
            members.push(leaf.id);
            members.extend(self.constants_of(leaf.id));
        }
    }

    /// Whether the program may compute `src` itself: a private elementwise node read whole, element for element.
    fn inlinable(&self, src: &Src) -> bool {
        self.private.contains(&src.node.id) && src.view.is_contiguous_of(&src.node.shape)
    }
}

/// Where a leaf sits: the child taken at each level from the top (bits `2i` and `2i + 1` of `turns`: the operand's
/// index), `depth` levels down. A program of 32 words is at most 32 levels deep.
#[derive(Clone, Copy)]
struct Path {
    turns: u64,
    depth: u32,
}

impl Path {
    fn then(self, child: u64) -> Path {
        Path { turns: self.turns | (child << (2 * self.depth)), depth: self.depth + 1 }
    }

    fn child(self, level: u32) -> usize {
        (self.turns >> (2 * level) & 3) as usize
    }
}

impl Tree {
    /// The leaves `want` takes, left to right, with their paths (the nodes only: a candidate is looked at without
    /// copying its view).
    fn leaves(&self, path: Path, want: &impl Fn(&Src) -> bool, out: &mut Vec<(Path, Arc<Node>)>) {
        match self {
            Tree::Leaf(s) if want(s) => out.push((path, s.node.clone())),
            Tree::Leaf(_) | Tree::Const(_) => {}
            Tree::Unary(_, x) | Tree::Cast(_, x) => x.leaves(path.then(0), want, out),
            Tree::Binary(_, x, y) => {
                x.leaves(path.then(0), want, out);
                y.leaves(path.then(1), want, out);
            }
            Tree::Where(xs) => {
                for (k, x) in (0..).zip(xs.iter()) {
                    x.leaves(path.then(k), want, out);
                }
            }
        }
    }

    fn at(&mut self, path: Path) -> &mut Tree {
        let mut t = self;
        for level in 0..path.depth {
            t = match t {
                Tree::Unary(_, x) | Tree::Cast(_, x) => x,
                Tree::Binary(_, x, y) => {
                    if path.child(level) == 0 {
                        x
                    } else {
                        y
                    }
                }
                Tree::Where(xs) => &mut xs[path.child(level)],
                leaf => return leaf,
            };
        }
        t
    }

    /// Whether the program `emitted` would write fits the fused kernel, without writing it: its words, its value
    /// stack's depth and its distinct inputs (a source read twice through one view is one).
    fn fits(&self) -> bool {
        let mut inputs: [Option<&Src>; FUSED_INPUTS] = [None; FUSED_INPUTS];
        match self.measure(&mut inputs) {
            Some((words, depth)) => words <= FUSED_WORDS && depth <= FUSED_DEPTH && inputs[0].is_some(),
            None => false,
        }
    }

    /// (words, most values on the stack) of the postfix program, collecting its inputs; None past the inputs' limit.
    fn measure<'a>(&'a self, inputs: &mut [Option<&'a Src>; FUSED_INPUTS]) -> Option<(usize, usize)> {
        match self {
            Tree::Leaf(s) => {
                let same = |i: &Option<&Src>| i.is_some_and(|i| i.node.id == s.node.id && i.view == s.view);
                if !inputs.iter().any(same) {
                    *inputs.iter_mut().find(|i| i.is_none())? = Some(s);
                }
                Some((1, 1))
            }
            Tree::Const(_) => Some((2, 1)),
            Tree::Unary(_, x) | Tree::Cast(_, x) => x.measure(inputs).map(|(w, d)| (w + 1, d)),
            Tree::Binary(_, x, y) => {
                let (wx, dx) = x.measure(inputs)?;
                let (wy, dy) = y.measure(inputs)?;
                Some((wx + wy + 1, dx.max(dy + 1)))
            }
            Tree::Where(xs) => {
                let (mut words, mut depth) = (1, 0);
                for (below, x) in xs.iter().enumerate() {
                    let (w, d) = x.measure(inputs)?;
                    words += w;
                    depth = depth.max(d + below);
                }
                Some((words, depth))
            }
        }
    }

    /// The postfix program and its inputs (a source read twice through one view is one input), borrowed: a
    /// candidate is checked without copying a source.
    fn emit<'a>(&'a self, steps: &mut Vec<Step>, inputs: &mut Vec<&'a Src>) -> Option<()> {
        match self {
            Tree::Leaf(s) => {
                let k = match inputs.iter().position(|i| i.node.id == s.node.id && i.view == s.view) {
                    Some(k) => k,
                    None => {
                        inputs.push(s);
                        inputs.len() - 1
                    }
                };
                steps.push(Step::Input(u8::try_from(k).ok()?));
            }
            Tree::Const(c) => steps.push(Step::Const(*c)),
            Tree::Unary(op, x) => {
                x.emit(steps, inputs)?;
                steps.push(Step::Unary(*op));
            }
            Tree::Binary(op, x, y) => {
                x.emit(steps, inputs)?;
                y.emit(steps, inputs)?;
                steps.push(Step::Binary(*op));
            }
            Tree::Where(xs) => {
                for x in xs.iter() {
                    x.emit(steps, inputs)?;
                }
                steps.push(Step::Where);
            }
            Tree::Cast(d, x) => {
                x.emit(steps, inputs)?;
                steps.push(Step::Cast(*d));
            }
        }
        Some(())
    }

    /// The postfix program and its borrowed inputs, where they fit the fused kernel (which reads its output's shape
    /// and device from its first input, so it needs one).
    fn emitted(&self) -> Option<(Vec<Step>, Vec<&Src>)> {
        let (mut steps, mut inputs) = (Vec::new(), Vec::new());
        self.emit(&mut steps, &mut inputs)?;
        (!inputs.is_empty() && fits(&steps)).then_some((steps, inputs))
    }

    fn program(&self) -> Option<(Vec<Step>, Vec<Src>)> {
        self.emitted().map(|(steps, inputs)| (steps, inputs.into_iter().cloned().collect()))
    }
}

/// Groups `order` (a schedule: sources first) into fused programs. Each group ends at a node nobody inlines,
/// visited last to first: every private node below it where the whole fits, else grown a leaf at a time.
pub fn plan(order: &[Arc<Node>], holders: &Holders) -> Fusion {
    let graph = Graph::new(order, holders);
    let mut fusion = Fusion::default();
    for node in order.iter().rev() {
        if fusion.inlined.contains(&node.id) {
            continue;
        }
        let Some(mut tree) = graph.shallow(node) else { continue };
        let mut members = graph.constants_of(node.id);
        // Every private node below first, where that fits: a group may read fewer inputs whole than any part of it
        // does (`x + y` computed three times feeding one `where`).
        match graph.entire(node) {
            Some((full, all)) => {
                tree = full;
                members.extend(all);
            }
            None => graph.grow(&mut tree, &mut members),
        }
        if members.is_empty() {
            continue;
        }
        if let Some((steps, inputs)) = tree.program() {
            fusion.inlined.extend(members);
            fusion.programs.insert(node.id, (steps.into(), inputs));
        }
    }
    // A shared node some kernel reads (a reader whose program had no room for it) runs on its own as well, with its
    // constants; the programs that took it still compute it themselves.
    let kernels = order.iter().filter(|n| !fusion.inlined.contains(&n.id));
    let read: Vec<u64> = kernels
        .flat_map(|n| fusion.reads(n.id, holders))
        .map(|s| s.node.id)
        .filter(|id| graph.shared.contains(id) && fusion.inlined.contains(id))
        .collect();
    for id in read {
        fusion.inlined.remove(&id);
        for c in graph.constants_of(id) {
            fusion.inlined.remove(&c);
        }
    }
    fusion
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::buffer::DeviceId;
    use crate::base::view::View;

    /// A tree of `size` operations over `srcs` and constants, drawn from `seed` (a small xorshift).
    fn random_tree(seed: &mut u64, size: usize, srcs: &[Src]) -> Tree {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        fn grow(next: &mut dyn FnMut() -> u64, size: usize, srcs: &[Src]) -> Tree {
            if size == 0 {
                return match next() % 5 {
                    0 => Tree::Const(0.5),
                    k => Tree::Leaf(srcs[k as usize % srcs.len()].clone()),
                };
            }
            let left = (next() % size as u64) as usize;
            match next() % 6 {
                0 => Tree::Unary(UnaryOp::Exp, Box::new(grow(next, size - 1, srcs))),
                1 => Tree::Cast(DType::F16, Box::new(grow(next, size - 1, srcs))),
                2 | 3 => {
                    let mid = (next() % (size - left) as u64) as usize;
                    let xs = [grow(next, left, srcs), grow(next, mid, srcs), grow(next, size - 1 - left - mid, srcs)];
                    Tree::Where(Box::new(xs))
                }
                _ => {
                    let (x, y) = (grow(next, left, srcs), grow(next, size - 1 - left, srcs));
                    Tree::Binary(BinaryOp::Add, Box::new(x), Box::new(y))
                }
            }
        }
        grow(&mut next, size, srcs)
    }

    #[test]
    fn fits_agrees_with_the_emitted_program() {
        let node = || Node::new(Op::Full(Scalar::Float(1.0)), vec![], vec![4, 4], DType::F32, DeviceId(0));
        let (a, b) = (node(), node());
        let whole = View::contiguous(&[4, 4]);
        let mut row = whole.clone();
        row.offset = 4;
        // Four inputs in all: one more than a program binds, so some trees must not fit for that alone.
        let srcs = [
            Src { node: a.clone(), view: whole.clone() },
            Src { node: a, view: row.clone() },
            Src { node: b.clone(), view: whole },
            Src { node: b, view: row },
        ];
        let (mut seed, mut fit, mut unfit) = (0x9e37_79b9_7f4a_7c15u64, 0, 0);
        for size in 0..40 {
            for _ in 0..50 {
                let tree = random_tree(&mut seed, size % 20, &srcs[..1 + size % 4]);
                let want = tree.emitted().is_some();
                assert_eq!(tree.fits(), want, "size {size}");
                if want {
                    fit += 1;
                } else {
                    unfit += 1;
                }
            }
        }
        assert!(fit > 100 && unfit > 100, "{fit} fit, {unfit} do not");
    }
}
