// The search's declarations (diagnose/index.d.ts) in use, checked by `tsc -p tests/types` (never run).
// The @ts-expect-error lines are misuses the declarations must refuse.
import { diagnose, parsePrinted, DiagnoseError } from '../../diagnose/index.js';
import type { Answer, Change, DiagnoseRequest } from '../../diagnose/index.js';

export async function why(printed: string): Promise<string[]> {
  const request: DiagnoseRequest = { printed, settings: { d_out: 4, heads: 2, profile: 'mkl' }, step: 'mha-output' };
  const { exact, nearest } = await diagnose(request);
  const fromLink = await diagnose({ printed, settings: 'd_out=4&heads=2' });
  const lines = exact.flatMap((a: Answer) => a.changes.map((c: Change) => `${c.kind} ${c.name}: ${c.code.from} -> ${c.code.to}`));
  const first: number[] | null = nearest?.firstDifference?.index ?? null;
  const parsed = parsePrinted(printed);
  const shape: number[] = parsed.shape;
  if (parsed.kind === 'tensor') lines.push(parsed.numbers.map((n) => n.text).join(' '));
  try {
    await diagnose({ printed: '' });
  } catch (error) {
    if (error instanceof DiagnoseError) lines.push(error.message);
  }
  // @ts-expect-error: a kind the search does not have
  const kind: Change['kind'] = 'weather';
  // @ts-expect-error: the printout is required
  await diagnose({ step: 'mha-output' });
  // @ts-expect-error: profile is 'default' or 'mkl'
  await diagnose({ printed, settings: { profile: 'arm' } });
  return [...lines, String(first), String(shape), String(fromLink.exact.length), kind];
}
