// Where the layout has no settings column (phones, tablets), the settings open as a drawer over the lower part
// of the screen, so that the step's numbers stay in sight above it while they are edited (styles.css). Its
// toggle, its Done button, Escape and a change of layout open and close it; the opener gets the focus back.
const DRAWER = '(max-width: 74.99rem)';

/**
 * @param {HTMLElement} panel the settings
 * @param {HTMLElement} toggle the step bar's Settings button
 */
export function installDrawer(panel, toggle) {
  let opener = null;
  const isOpen = () => document.documentElement.classList.contains('settings-open');

  /** Opens the drawer from `from` (which gets the focus back) with the focus on `focusTarget` or the title. */
  function open(from, focusTarget = null) {
    opener = from;
    document.documentElement.classList.add('settings-open');
    toggle.setAttribute('aria-expanded', 'true');
    panel.setAttribute('role', 'dialog');
    panel.setAttribute('aria-modal', 'false');
    if (!focusTarget) panel.querySelector('#settings-title')?.setAttribute('tabindex', '-1');
    (focusTarget ?? panel.querySelector('#settings-title'))?.focus({ preventScroll: true });
  }

  function close({ restoreFocus = true } = {}) {
    if (!isOpen()) return;
    document.documentElement.classList.remove('settings-open');
    toggle.setAttribute('aria-expanded', 'false');
    panel.removeAttribute('role');
    panel.removeAttribute('aria-modal');
    if (restoreFocus && opener?.isConnected) opener.focus({ preventScroll: true });
    opener = null;
  }

  toggle.addEventListener('click', (e) => (isOpen() ? close() : open(e.currentTarget)));
  panel.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest('#close-settings')) close();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && isOpen()) {
      e.preventDefault();
      close();
    }
  });
  matchMedia(DRAWER).addEventListener('change', () => close({ restoreFocus: false }));

  return { isDrawer: () => matchMedia(DRAWER).matches, isOpen, open, close };
}
