// The notebook's declarations (notebook/index.d.ts) in use, checked by `tsc -p tests/types` (never run).
// The @ts-expect-error lines are misuses the declarations must refuse.
import { loadNotebook, NotebookError } from '../../notebook/index.js';
import type { CellError, CellResult, Notebook, NotebookOptions, NotebookProfile } from '../../notebook/index.js';

export async function chapterCell(): Promise<string> {
  const options: NotebookOptions = {
    profile: 'mkl',
    flavour: 'simd',
    hostAccess: false,
    onProgress: (message: string, fraction: number) => console.log(message, fraction),
  };
  const nb: Notebook = await loadNotebook(options);
  const profile: NotebookProfile = nb.profile;
  const result: CellResult = await nb.run('import torch\ntorch.manual_seed(123)\ntorch.rand(2)',
    { onOutput: (text: string) => console.log(text) });
  const error: CellError | null = result.error;
  const line: number | null = error ? error.line : null;
  await nb.setProfile('default');
  if (nb.interruptible) await nb.stop();
  await nb.restart();
  // @ts-expect-error: only 'default' and 'mkl'
  await nb.setProfile('intel');
  // @ts-expect-error: code is a string
  await nb.run(42);
  // Python restored from the build's snapshot, or why it was not
  const from: 'given' | 'build' | null = nb.restoredFrom;
  const refused: string | null = nb.snapshotRefused;
  await loadNotebook({ snapshotURL: 'https://example.org/site/notebook-python-snapshot.gz', onSnapshot: (bytes: Uint8Array) => bytes.length });
  // @ts-expect-error: the address is a string
  await loadNotebook({ snapshotURL: new Uint8Array(1) });
  await nb.close();
  const thrown: NotebookError = new NotebookError('x');
  return `${profile} ${nb.backend} ${line} ${thrown.name} ${result.output} ${from} ${refused}`;
}
