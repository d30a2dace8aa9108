// 3.5.2 Dropout: the mask drawn on a matrix of ones and on the causal weights, for the default build and
// for Intel-MKL builds, which draw their masks differently from the same seed.
// Reads the n of 3.3.1 and the ones and masked weights (causal) of 3.5.1; adds nothing for later sections.
import * as explain from '../explain.js';
import { same } from '../operands.js';

export default function dropout(chapter) {
  const { torch, settings, results, show, fact, words, n, ones, causal } = chapter;
  // Only the weights' axes are the words: the ones are no sentence, so theirs are plain indices.
  const square = { rows: words, cols: words };
  const p = settings.p;
  const seed = settings.seed;
  const onesValues = ones.toArray();
  const dropped = (name) => (idx) => (results[name].values[idx[0]][idx[1]] === 0 ? 'dropped' : null);
  // One module for every mask below: it draws from the generator as it is at each forward.
  const drop = new torch.nn.Dropout(p);
  // The default path's uniforms, replayed through torch.rand (which shows the same draws' low 24 bits).
  torch.manualSeed(seed);
  const uniforms = explain.doubleUniforms(torch.rand(2 * n * n).toArray());
  // Both builds' masks, whatever the profile setting, to set them side by side.
  const draws = fact('dropout_draws', {}).value;
  for (const profile of ['default', 'mkl']) {
    const name = `dropout_ones_${profile}`;
    torch.setRngProfile(profile);
    torch.manualSeed(seed);
    show(name, drop.forward(ones), {
      label: `dropout(example), ${profile === 'mkl' ? 'MKL build on an Intel CPU' : 'default build'}`,
      marks: dropped(name),
      explain: (out) => explain.dropout(onesValues, out, p, profile === 'mkl' ? { seed, profile } : { seed, uniforms }),
    });
    draws[profile] = torch.rngDraws();
  }
  const how = { seed, profile: settings.profile, uniforms: settings.profile === 'default' ? uniforms : null };

  torch.setRngProfile(settings.profile);
  torch.manualSeed(seed);
  show('dropout_ones', drop.forward(ones), { label: 'dropout(example)', marks: dropped('dropout_ones'), explain: (out) => explain.dropout(onesValues, out, p, how) });
  torch.manualSeed(seed);
  show('dropout_weights', drop.forward(causal), {
    label: 'dropout(attn_weights)',
    ...square,
    marks: (idx) => (idx[1] > idx[0] ? 'masked' : dropped('dropout_weights')(idx)),
    explain: (out) => explain.dropout(results.causal_attn_weights.values, out, p, how),
    operands: (index) => [same('causal_attn_weights', index)],
  });
  torch.setRngProfile('default');
  drop.delete();
}
