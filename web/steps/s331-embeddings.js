// 3.3.1 — the input every later step starts from.
export default {
  id: 'embeddings',
  section: '3.3.1',
  title: 'Six tokens, six 3-D vectors',
  prose: [
    'The input is a short text of six tokens (in the book: “Your journey starts with one step”). Each token is ' +
      'represented by its embedding, a vector of three numbers, and the six vectors stacked as rows form `inputs`, ' +
      'a 6 × 3 tensor.',
    'Three dimensions are far fewer than a real model uses (GPT-2 has 768), but they keep every number on screen. ' +
      'The values are invented for the example; in a trained model they come from an embedding layer.',
    'The bars draw each token’s three features next to each other, so tokens that point in a similar direction ' +
      'are easy to spot. You can edit the words and the numbers in the settings: every later step is recomputed ' +
      'from them (the code below keeps the book’s values).',
  ],
  formula: String.raw`\mathbf{X} = \begin{bmatrix} \mathbf{x}^{(1)} \\ \vdots \\ \mathbf{x}^{(6)} \end{bmatrix} \in \mathbb{R}^{6 \times 3}`,
  code: [
    'inputs = torch.tensor([',
    '    [0.43, 0.15, 0.89],  # Your',
    '    [0.55, 0.87, 0.66],  # journey',
    '    [0.57, 0.85, 0.64],  # starts',
    '    [0.22, 0.58, 0.33],  # with',
    '    [0.77, 0.25, 0.10],  # one',
    '    [0.05, 0.80, 0.55],  # step',
    '])',
  ],
  highlight: [0, 1, 2, 3, 4, 5, 6, 7],
  show: ['inputs'],
  view: 'embeddings',
  controls: ['tokens', 'embeddings'],
  note: (r) => `inputs.shape = [${r.inputs.shape.join(', ')}]: ${r.inputs.shape[0]} tokens, ${r.inputs.shape[1]} features each.`,
};
