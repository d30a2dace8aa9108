// 3.5.3 — a batch dimension in front.
import { printAlso, printOf } from '../python.js';
import { counted, sizes } from './words.js';
export default {
  id: 'batch',
  section: '3.5.3',
  title: 'A batch of two texts',
  prose: [
    'Models process several texts at a time, so the attention class should take a batch: a 3-D tensor of shape ' +
      '(batch, tokens, features). Stacking `inputs` twice along a new first dimension gives a batch of two ' +
      'identical texts, which is enough to check that the batch dimension is handled correctly.',
    'Hover over a cell to see which entry of `inputs` it copies.',
  ],
  formula: (s) => String.raw`\text{batch} \in \mathbb{R}^{2 \times ${sizes(s).n} \times ${sizes(s).d}}`,
  code: ['batch = torch.stack((inputs, inputs), dim=0)', printOf('batch', 'batch'), printAlso('batch.shape')],
  highlight: [0],
  show: ['batch'],
  note: (r) => `batch.shape = [${r.batch.shape.join(', ')}]: ${counted(r.batch.shape[0], 'text')} × ${counted(r.batch.shape[1], 'token')} × ${counted(r.batch.shape[2], 'feature')}.`,
};
