// 3.3.1 — the operation everything in the chapter is built from.
import { printOf } from '../python.js';
export default {
  id: 'dot-product',
  section: '3.3.1',
  title: 'A dot product of two vectors',
  prose: [
    'Attention scores are dot products: multiply two vectors element by element and add the products up. ' +
      'The result is one number that is large when the vectors point the same way.',
    'Hover over, click or focus the result to see the three products that make it up.',
  ],
  formula: String.raw`\mathbf{x}^{(1)} \cdot \mathbf{x}^{(2)} = \sum_{i=1}^{3} x^{(1)}_i \, x^{(2)}_i`,
  code: [
    'x1 = torch.tensor([0.4, 0.1, 0.8])',
    'x2 = torch.tensor([0.5, 0.8, 0.6])',
    printOf('x1', 'x1'),
    printOf('x2', 'x2'),
    printOf('dot_x1_x2', 'torch.dot(x1, x2)'),
  ],
  highlight: [4],
  show: ['x1', 'x2', 'dot_x1_x2'],
  view: 'overview',
};
