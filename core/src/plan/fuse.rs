//! Planner fusion: a float32 unary or binary node, with the float32 elementwise nodes feeding it that nothing else
//! holds, runs as one `Op::Fused` kernel. Each step of the program computes what its primitive computes, so fused
//! and unfused runs give the same bytes; `VKML_FUSION=0` turns fusion off.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::{Arc, OnceLock};

use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::node::{Node, Src};
use crate::graph::op::{fits, BinaryOp, Op, Step, UnaryOp};

use super::holders::Holders;

/// What fusion decided for one realization.
#[derive(Default)]
pub struct Fusion {
    /// Nodes computed inside another node's program: they get no kernel of their own and stay unrealized.
    pub inlined: HashSet<u64>,
    /// The last node of each group -> its program and the sources the program reads (input k is `srcs[k]`).
    pub programs: HashMap<u64, (Arc<[Step]>, Vec<Src>)>,
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

/// A node a program can compute: a float32 unary or binary op of float32 sources.
fn elementwise(node: &Node, srcs: &[Src]) -> bool {
    matches!(node.op, Op::Unary(_) | Op::Binary(_))
        && node.dtype == DType::F32
        && srcs.iter().all(|s| s.node.dtype == DType::F32 && s.node.device == node.device)
}

/// The graph of one realization, as fusion sees it.
struct Graph<'h> {
    srcs: &'h HashMap<u64, Vec<Src>>,
    /// Nodes that may be computed inside their one consumer's program: pending, not asked for, read once by a
    /// pending node and held by nothing else.
    private: HashSet<u64>,
}

impl<'h> Graph<'h> {
    fn new(holders: &'h Holders) -> Graph<'h> {
        let once = |id: &&u64| holders.uses.get(id) == Some(&1);
        let private = holders.internal.iter().filter(once).copied().collect();
        Graph { srcs: &holders.srcs, private }
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
            _ => None,
        }
    }

    /// The private float32 `Full` sources of node `id`: the program holds them as constants, so they need no kernel.
    fn constants_of(&self, id: u64) -> Vec<u64> {
        let srcs = self.srcs.get(&id).into_iter().flatten();
        srcs.filter(|s| constant(&s.node).is_some() && self.private.contains(&s.node.id)).map(|s| s.node.id).collect()
    }

    /// Whether the program may compute `src` itself: a private elementwise node read whole, element for element.
    fn inlinable(&self, src: &Src) -> bool {
        self.private.contains(&src.node.id) && src.view.is_contiguous_of(&src.node.shape)
    }
}

impl Tree {
    /// Paths (child indices from the top) of the leaves, left to right.
    fn leaves(&self, path: &mut Vec<u8>, out: &mut Vec<(Vec<u8>, Src)>) {
        match self {
            Tree::Leaf(s) => out.push((path.clone(), s.clone())),
            Tree::Const(_) => {}
            Tree::Unary(_, x) => {
                path.push(0);
                x.leaves(path, out);
                path.pop();
            }
            Tree::Binary(_, x, y) => {
                for (i, t) in [x, y].into_iter().enumerate() {
                    path.push(i as u8);
                    t.leaves(path, out);
                    path.pop();
                }
            }
        }
    }

    fn at(&mut self, path: &[u8]) -> &mut Tree {
        match (self, path.split_first()) {
            (Tree::Unary(_, x), Some((_, rest))) => x.at(rest),
            (Tree::Binary(_, x, y), Some((i, rest))) => {
                let t = if *i == 0 { x } else { y };
                t.at(rest)
            }
            (t, _) => t,
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
/// visited last to first; its leaves are inlined one at a time, left to right, while the program still fits.
pub fn plan(order: &[Arc<Node>], holders: &Holders) -> Fusion {
    let graph = Graph::new(holders);
    let mut fusion = Fusion::default();
    for node in order.iter().rev() {
        if fusion.inlined.contains(&node.id) {
            continue;
        }
        let Some(mut tree) = graph.shallow(node) else { continue };
        let mut members = graph.constants_of(node.id);
        let mut tried: HashSet<u64> = HashSet::default();
        loop {
            let mut leaves = Vec::new();
            tree.leaves(&mut Vec::new(), &mut leaves);
            // The first leaf whose node, put in its place, still fits (tried in place and put back if not).
            let next = leaves.into_iter().find(|(path, src)| {
                if tried.contains(&src.node.id) || !graph.inlinable(src) {
                    return false;
                }
                tried.insert(src.node.id);
                let Some(grown) = graph.shallow(&src.node) else { return false };
                let leaf = std::mem::replace(tree.at(path), grown);
                let fits = tree.emitted().is_some();
                if !fits {
                    *tree.at(path) = leaf;
                }
                fits
            });
            let Some((_, src)) = next else { break };
            members.push(src.node.id);
            members.extend(graph.constants_of(src.node.id));
        }
        if members.is_empty() {
            continue;
        }
        if let Some((steps, inputs)) = tree.program() {
            fusion.inlined.extend(members);
            fusion.programs.insert(node.id, (steps.into(), inputs));
        }
    }
    fusion
}
