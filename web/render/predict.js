// "Predict, then see": a step's `predict` asks a question (a choice or a number) before it shows the numbers
// the question is about. Until the learner answers or presses "Show me", those results are veiled (kept in
// their place, hidden and out of reach) with the step's note; then the step says whether the guess was right
// and why, from the live numbers. Answers are kept in the page's state and its link (main.js, state.js: 'answers=
// top-score:2,mask-zeros:skipped'), so a link shares a quiz and a link without them asks again; predictions can
// be turned off (remembered on this device) and on again from any step that has one. Solved exercises
// (render/exercise.js) are remembered for the browser session.
import { h } from './dom.js';
import { quoted } from '../state.js';

const ANSWERS_KEY = 'attention-lab:predictions';
const OFF_KEY = 'attention-lab:predictions-off';

// Storage can be missing or refused (a private window, a file:// page): the page then remembers nothing.
function store(kind) {
  try {
    return kind === 'session' ? window.sessionStorage : window.localStorage;
  } catch {
    return null;
  }
}
/** What the session remembers (the exercises solved): { key: value }. */
export const answers = () => {
  try {
    return JSON.parse(store('session')?.getItem(ANSWERS_KEY) ?? '{}') ?? {};
  } catch {
    return {};
  }
};
export function remember(id, guess) {
  try {
    store('session')?.setItem(ANSWERS_KEY, JSON.stringify({ ...answers(), [id]: guess }));
  } catch {
    // not remembered: the question comes back on the next visit
  }
}
export const predictionsOn = () => store('local')?.getItem(OFF_KEY) !== 'true';
function setPredictionsOn(on) {
  try {
    if (on) store('local')?.removeItem(OFF_KEY);
    else store('local')?.setItem(OFF_KEY, 'true');
  } catch {
    // nothing to remember it in
  }
}

/**
 * Veils the results named `names` (kept in their place, hidden and inert, a line saying why in their stead) and
 * hides the parts of `article` matched by `selectors`: { veil(), unveil() }.
 */
export function veiler(article, names, selectors = []) {
  const results = names.map((name) => article.querySelector(`.results [data-tensor="${name}"]`)).filter(Boolean);
  // looked up each time: a formula's placeholder is replaced once KaTeX has loaded
  const parts = () => selectors.flatMap((sel) => [...article.querySelectorAll(sel)]);
  return {
    veil() {
      for (const el of results) {
        el.inert = true;
        el.classList.add('is-veiled');
        // the result's own label (`attention_v1(inputs)`), as the learner will see it once shown
        const label = el.querySelector('.result-label')?.textContent ?? el.dataset.tensor;
        el.before(h('p', { class: 'veil-label', 'data-veil-for': el.dataset.tensor }, h('code', {}, label), ': hidden until you answer the question above.'));
      }
      for (const el of parts()) el.hidden = true;
    },
    unveil() {
      for (const el of results) {
        el.inert = false;
        el.classList.remove('is-veiled');
      }
      for (const label of article.querySelectorAll('.veil-label')) label.remove();
      for (const el of parts()) el.hidden = false;
    },
  };
}

/** A guess still usable with these numbers: a choice among today's options, or a finite number. */
function usable(predict, guess, results, settings) {
  if (guess === null || guess === undefined) return false;
  if (guess === 'skipped') return true;
  if (predict.kind === 'number') return Number.isFinite(guess);
  return predict.options(results, settings).some((o) => o.value === guess);
}

/** 'user typed' -> a number ('2', '2.0', '.5', '1e0'), else NaN. */
const numberFrom = (text) => (/^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) ? Number(text) : NaN);

/** A guess as a link writes it ('skipped' for "Show me"). */
export const answerForLink = (guess) => String(guess);

/** A link's text of an answer as the guess it stands for, or undefined when it is none of this question's answers. */
function answerFromLink(predict, text, results, settings) {
  if (text === 'skipped') return 'skipped';
  if (predict.kind === 'number') return Number.isFinite(numberFrom(text)) ? numberFrom(text) : undefined;
  try {
    return predict.options(results, settings).find((o) => answerForLink(o.value) === text)?.value;
  } catch {
    return undefined;
  }
}

/**
 * A link's answers ({ questionId: text }) read as guesses for the questions `predicts` asks with these numbers:
 * { answers: { questionId: guess }, notice: a sentence naming those that cannot be used (asked again), or null }.
 */
export function answersFromLink(texts, predicts, results, settings) {
  const answers = {};
  const unusable = [];
  for (const [id, text] of Object.entries(texts)) {
    const predict = predicts.find((p) => p.id === id);
    const guess = predict ? answerFromLink(predict, text, results, settings) : undefined;
    if (guess === undefined) unusable.push(`answer to ${predict ? '' : 'an unknown question '}“${quoted(id)}” (${quoted(text)})`);
    else answers[id] = guess;
  }
  if (!unusable.length) return { answers, notice: null };
  const list = unusable.length > 1 ? `${unusable.slice(0, -1).join(', ')} and ${unusable.at(-1)}` : unusable[0];
  return { answers, notice: `This link’s ${list} could not be used, so ${unusable.length > 1 ? 'those questions are' : 'that question is'} asked again.` };
}

/**
 * Puts the step's prediction into `article` (a step already drawn): the question before the results, the
 * results it names veiled until it is answered. `saved`: the answer the page's state holds for it (undefined:
 * none); onAnswer(id, guess) keeps a new one (null: asked again). Returns nothing; its effects are on `article`.
 * predict: { id, kind: 'choice' | 'number', question(results, settings), options(results, settings) (choice:
 * [{ value, label }]), unit (number: what the number is), hides: [result names], hidesAlso: [selectors of other
 * parts that tell the answer], verdict(guess, results, settings) -> { right: boolean, text } }
 */
export function installPrediction(article, predict, results, settings, { saved, onAnswer = () => {} } = {}) {
  const anchor = article.querySelector('.results');
  if (!anchor) return;
  if (!predictionsOn()) {
    const back = h('button', { type: 'button', class: 'button quiet small' }, 'Ask me first');
    const box = h('p', { class: 'predict-off', 'data-predict': predict.id }, 'Predictions are off: the numbers are shown at once. ', back);
    back.addEventListener('click', () => {
      setPredictionsOn(true);
      box.remove();
      installPrediction(article, predict, results, settings, { saved, onAnswer });
      article.querySelector(`.predict[data-predict="${predict.id}"] input`)?.focus();
    });
    anchor.before(box);
    return;
  }

  const panel = h('section', { class: 'predict', 'data-predict': predict.id, 'aria-labelledby': `predict-${predict.id}` });
  anchor.before(panel);

  const { veil, unveil } = veiler(article, predict.hides, ['.step-note', ...(predict.hidesAlso ?? [])]);

  const off = h('button', { type: 'button', class: 'button quiet small predict-turn-off' }, 'Turn predictions off');
  off.addEventListener('click', () => {
    setPredictionsOn(false);
    unveil();
    panel.replaceWith(h('p', { class: 'predict-off', 'data-predict': predict.id, role: 'status' }, 'Predictions are off on every step; “Ask me first” on a step with a question turns them back on.'));
  });

  const heading = h('h3', { class: 'predict-title', id: `predict-${predict.id}` }, 'Predict first');
  const question = h('p', { class: 'predict-question' }, predict.question(results, settings));

  function showVerdict(guess) {
    unveil();
    const { right, text } = guess === 'skipped' ? { right: null, text: predict.verdict(null, results, settings).text } : predict.verdict(guess, results, settings);
    const head = right === null ? 'Here is what happens.' : right ? 'Right.' : 'Not quite.';
    const status = h('p', { class: `predict-verdict${right === null ? '' : right ? ' is-right' : ' is-wrong'}`, role: 'status', tabindex: '-1' }, h('strong', {}, `${head} `), text);
    const again = h('button', { type: 'button', class: 'button quiet small' }, 'Ask me again');
    again.addEventListener('click', () => {
      onAnswer(predict.id, null);
      veil();
      ask();
      panel.querySelector('input')?.focus();
    });
    panel.replaceChildren(heading, question, status, h('p', { class: 'predict-actions' }, again, ' ', off));
    return status;
  }

  function ask() {
    const form = h('form', { class: 'predict-form', novalidate: true });
    const error = h('p', { class: 'field-error', id: `predict-${predict.id}-error`, hidden: true });
    let read;
    if (predict.kind === 'number') {
      const input = h('input', { type: 'text', inputmode: 'decimal', id: `predict-${predict.id}-input`, autocomplete: 'off', class: 'short-input', 'aria-describedby': `predict-${predict.id}-error` });
      form.append(h('p', { class: 'predict-field' }, h('label', { for: input.id }, predict.unit), ' ', input));
      read = () => numberFrom(input.value);
    } else {
      const options = predict.options(results, settings);
      const name = `predict-${predict.id}-choice`;
      const group = h('fieldset', { class: 'predict-choices', 'aria-describedby': `predict-${predict.id}-error` },
        h('legend', { class: 'sr-only' }, predict.question(results, settings)),
        ...options.map((o, i) => h('label', { class: 'predict-choice' }, h('input', { type: 'radio', name, value: String(i) }), ` ${o.label}`)));
      form.append(group);
      read = () => {
        const picked = group.querySelector('input:checked');
        return picked ? options[Number(picked.value)].value : null;
      };
    }
    const check = h('button', { type: 'submit', class: 'button small' }, 'Check');
    const skip = h('button', { type: 'button', class: 'button quiet small predict-skip' }, 'Show me');
    form.append(error, h('p', { class: 'predict-actions' }, check, ' ', skip, ' ', off));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const guess = read();
      if (guess === null || (predict.kind === 'number' && !Number.isFinite(guess))) {
        error.textContent = predict.kind === 'number' ? 'Type a number, or press “Show me”.' : 'Pick one of the answers, or press “Show me”.';
        error.hidden = false;
        form.querySelector('input')?.focus();
        return;
      }
      onAnswer(predict.id, guess);
      showVerdict(guess).focus();
    });
    skip.addEventListener('click', () => {
      onAnswer(predict.id, 'skipped');
      showVerdict('skipped').focus();
    });
    panel.replaceChildren(heading, question, form);
  }

  veil();
  if (usable(predict, saved, results, settings)) showVerdict(saved);
  else ask();
}
