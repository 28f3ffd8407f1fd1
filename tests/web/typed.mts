// A TypeScript program over the npm package's declarations (index.d.ts), checked by `tsc --strict` and then run
// by Node (tools/test.sh): a small recurrent model trained a few steps, attention, a scheduler and a data loader.
// The @ts-expect-error lines must stay errors, so a declaration that degrades to `any` fails the check.
import * as vkml from "vkml";

const { nn, optim, data } = vkml;

class Tagger extends nn.Module {
  lstm = new nn.LSTM(3, 8, { num_layers: 2, batch_first: true });
  head = new nn.Linear(8, 4);
  forward(x: vkml.Tensor): vkml.Tensor {
    const [out, [h, c]] = this.lstm.forward(x);
    if (h.shape[0] !== 2 || c.shape[2] !== 8) throw new Error("LSTM state shapes");
    return this.head.forward(out);
  }
}

const model = new Tagger();
const opt = new optim.Adam(model.parameters(), { lr: 0.03 });
const sched = new optim.lr_scheduler.StepLR(opt, { step_size: 5, gamma: 0.5 });
const x = vkml.randn([6, 5, 3]);
// The class of each step is the signs of its first two inputs: learnable from the step itself.
const y = x.get("...", 0).gt(0).long().mul(2).add(x.get("...", 1).gt(0).long());
const loader = new data.DataLoader(new data.TensorDataset(x, y), { batch_size: 3 });
const losses: number[] = [];
for (let epoch = 0; epoch < 10; epoch++) {
  for await (const [bx, by] of loader) {
    const logits: vkml.Tensor = model.forward(bx);
    const loss = nn.functional.cross_entropy(logits.reshape([-1, 4]), by.reshape([-1]));
    opt.zero_grad();
    loss.backward();
    opt.step();
    losses.push(Number(await loss.item()));
  }
  sched.step();
}
// Ten epochs learn the rule: the last epoch's loss is below 0.8 of the first's.
const epochLoss = (i: number) => (losses[2 * i] + losses[2 * i + 1]) / 2;
if (!(epochLoss(9) < 0.8 * epochLoss(0))) throw new Error(`the loss did not fall: ${losses}`);

const mha = new nn.MultiheadAttention(6, 2, { batch_first: true });
const q = vkml.randn([2, 4, 6]);
const [att, weights] = mha.forward(q, q, q, { need_weights: true });
const layer = new nn.TransformerEncoderLayer(6, 2, { dim_feedforward: 16, dropout: 0 });
const enc: vkml.Tensor = layer.forward(vkml.randn([4, 2, 6]));
const gru = new nn.GRU(3, 5);
const [seq, hn] = gru.forward(vkml.randn([7, 2, 3]));
// Described functions: declarations generated from the engine's description, options positional or as one object.
const clipped: vkml.Tensor = nn.functional.hardtanh(q, -0.5, 0.5);
const fused: vkml.Tensor = vkml.addcmul(q, q, clipped, { value: 0.5 });
const bce = nn.functional.binary_cross_entropy_with_logits(q, vkml.rand([2, 4, 6]), { reduction: "sum" });
// Described methods: merged into Tensor's declaration.
const lower: vkml.Tensor = vkml.tril(q.sum(0), -1).triu({ diagonal: -1 }).nan_to_num(0, null, -1);
const prof = await vkml.profile(async () => {
  await model.forward(x).sum().item();
});
const profiled: number = prof.kernels.filter((k) => k.op === "matmul").length;
if (profiled === 0 || !prof.table().includes("matmul")) throw new Error("the profile missed the model's products");
const norm = new nn.BatchNorm1d(6);
norm.reset_running_stats();
norm.reset_parameters();
const stack = new nn.Sequential(new nn.Linear(6, 6), new nn.ReLU(), new nn.Dropout(0.1));
console.log(`typed example: loss ${epochLoss(0).toFixed(3)} → ${epochLoss(9).toFixed(3)}, attention ` +
  `[${att.shape}] weights [${weights?.shape}], encoder [${enc.shape}], GRU [${seq.shape}] [${hn.shape}], ` +
  `${stack.parameters().length} Sequential parameters, addcmul [${fused.shape}], BCE [${bce.shape}], ` +
  `tril [${lower.shape}]`);

// Mistakes the declarations refuse (never run).
export function mistakes(): void {
  // @ts-expect-error: sizes are numbers
  new nn.Linear("3", 8);
  // @ts-expect-error: an LSTM's state is [h, c], not one tensor
  new nn.LSTM(3, 4).forward(x, vkml.zeros([1, 6, 4]));
  // @ts-expect-error: options are torch's names
  new nn.GRU(3, 4, { layers: 2 });
  // @ts-expect-error: a reduction is one of torch's names
  nn.functional.mse_loss(x, x, { reduction: "avg" });
  // @ts-expect-error: the described options are torch's names
  nn.functional.elu(x, { slope: 1 });
  // @ts-expect-error: a described method's options too
  x.tril({ k: 1 });
}
