// The notebook's code editor: CodeMirror 6 with Python, the page's token colours, Shift+Enter / Ctrl+Enter,
// and the line of a cell's error marked. Each editor lives in a shadow root: there CodeMirror's generated
// styles go into a constructed stylesheet, which the page's Content-Security-Policy (style-src 'self', no
// inline <style>) allows, and the page's CSS custom properties still reach it.
import { basicSetup } from 'codemirror';
import { EditorView, Decoration, keymap } from '@codemirror/view';
import { EditorState, Prec, StateEffect, StateField } from '@codemirror/state';
import { python } from '@codemirror/lang-python';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';

// The page's token colours (styles.css), which keep their contrast in light and dark.
const highlight = HighlightStyle.define([
  { tag: tags.keyword, color: 'var(--tok-keyword)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--tok-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--tok-number)' },
  { tag: tags.comment, color: 'var(--tok-comment)', fontStyle: 'italic' },
  { tag: [tags.definition(tags.variableName), tags.function(tags.definition(tags.variableName)), tags.className],
    color: 'var(--accent)' },
]);

// The editor's frame, in the page's colours (CSS variables cross the shadow boundary; selectors do not).
const frame = EditorView.theme({
  '&': { fontFamily: 'var(--mono)', fontSize: 'var(--text-md)', background: 'var(--code-bg)', color: 'var(--fg)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--fg)' },
  '.cm-activeLine': { background: 'color-mix(in srgb, var(--accent-weak) 55%, transparent)' },
  '.cm-activeLineGutter': { background: 'var(--accent-weak)', color: 'var(--fg)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': { background: 'var(--accent-weak)' },
  '.cm-gutters': { background: 'var(--code-bg)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-error-line': { background: 'var(--error-bg)', boxShadow: 'inset 3px 0 0 var(--error-fg)' },
});

// ------------------------------------------------------------ typing over a selection
// Left to Chromium, typing over a selection that starts in a coloured token deletes it and gives the typed text
// that token's colour as an inline style attribute, which the page's Content-Security-Policy refuses (and logs).
// So the replacement is made here, through the same input handlers (closing brackets) that CodeMirror's own
// typing goes through. Only when the page's selection is the editor's main selection (in a shadow root the
// event's target ranges are empty, so the root's selection is read); otherwise (an IME composition, a selection
// CodeMirror has not read yet, a browser without ShadowRoot.getSelection) the browser edits as before.
const typeOverSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const sel = view.state.selection.main;
    if (event.inputType !== 'insertText' || !event.data || sel.empty || event.isComposing || view.composing) return false;
    const shown = view.root.getSelection?.();
    if (!shown?.anchorNode || !view.contentDOM.contains(shown.anchorNode) || !view.contentDOM.contains(shown.focusNode)) return false;
    const ends = [view.posAtDOM(shown.anchorNode, shown.anchorOffset), view.posAtDOM(shown.focusNode, shown.focusOffset)];
    if (Math.min(...ends) !== sel.from || Math.max(...ends) !== sel.to) return false;
    event.preventDefault();
    const text = event.data;
    const insert = () => view.state.update(view.state.replaceSelection(text), { userEvent: 'input.type', scrollIntoView: true });
    if (!view.state.facet(EditorView.inputHandler).some((handle) => handle(view, sel.from, sel.to, text, insert))) {
      view.dispatch(insert());
    }
    return true;
  },
});

// ------------------------------------------------------------ the failing line, marked in its editor
const setErrorLine = StateEffect.define();
const errorLine = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    for (const e of tr.effects) {
      if (!e.is(setErrorLine)) continue;
      if (e.value === null || e.value > tr.state.doc.lines) return Decoration.none;
      const line = tr.state.doc.line(e.value);
      return Decoration.set([Decoration.line({ class: 'cm-error-line' }).range(line.from)]);
    }
    return tr.docChanged ? Decoration.none : deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** An editor in `parent` holding `code`; run / runAndAdvance on Ctrl+Enter / Shift+Enter, changed on edits. */
export function createEditor(parent, code, { run, runAndAdvance, changed }) {
  const root = parent.attachShadow({ mode: 'open' });
  return new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: code,
      extensions: [
        Prec.highest(keymap.of([
          { key: 'Shift-Enter', run: () => (runAndAdvance(), true) },
          { key: 'Mod-Enter', run: () => (run(), true) },
        ])),
        basicSetup,
        python(),
        syntaxHighlighting(highlight),
        frame,
        EditorView.lineWrapping,
        errorLine,
        typeOverSelection,
        EditorView.updateListener.of((u) => { if (u.docChanged) changed(); }),
        EditorView.contentAttributes.of({ 'aria-label': 'Python code' }),
      ],
    }),
  });
}

/** Marks 1-based `line` of the editor as the one that failed (null: none). */
export function markErrorLine(view, line) {
  view.dispatch({ effects: setErrorLine.of(line) });
}
