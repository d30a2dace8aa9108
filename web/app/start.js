// Starting the page: the WebAssembly core first (nothing can be computed without it, and the page says so),
// KaTeX once the first numbers are shown.
import { loadAttention } from '../../wasm/index.js';
import { showStartFailure } from '../render/dom.js';

/**
 * The WebAssembly PyTorch port, or null once the page says why it could not be loaded.
 * @param {{ step: HTMLElement, nav: HTMLButtonElement[], backend: HTMLElement }} els
 *        step: where the failure is shown; nav: the buttons that then do nothing; backend: names the build
 */
export async function loadCore({ step, nav, backend }) {
  let torch;
  try {
    torch = await loadAttention();
  } catch (error) {
    showStartFailure(step, 'The page could not start', 'The WebAssembly module could not be loaded, so nothing can be computed.', error);
    for (const button of nav) button.disabled = true;
    return null;
  }
  performance.mark('page:loaded');
  // the build and its threads: in a page, the one-thread build (the bench page runs the threaded one); worded
  // to keep the phone's header lines as they were
  backend.textContent = `${torch.backend === 'wasm-simd128' ? 'WebAssembly SIMD' : 'WebAssembly'}, ${torch.threads} thread${torch.threads === 1 ? '' : 's'}`;
  backend.title = `torch.flavour: ${torch.flavour}, torch.threads: ${torch.threads}`;
  return torch;
}

/** KaTeX, loaded after the first step is shown; null if it failed (formulas are then shown as TeX). */
export const loadKatex = () => import('../render/katex.js').then((m) => m.default, () => null);
