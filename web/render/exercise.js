// The chapter's exercises, posed before their solution: a step's `exercise` asks a task with an answer the
// learner edits (a choice in a line of code, a checkbox, a number), checks it through the core (the check
// functions of chapter/exercises.js, via the step's `check`) and says what the core computed. The results,
// code and formula that give the solution away are veiled until the exercise is solved or "Show the
// solution" is pressed. Solved exercises are remembered for the session; with predictions turned off
// (render/predict.js) nothing is veiled and the exercise follows the step's explanation, to be tried there.
import { h } from './dom.js';
import { answers, predictionsOn, remember, veiler } from './predict.js';

const key = (exercise) => `exercise:${exercise.id}`;

/** A field's control, labelled: a choice (select), a checkbox or a number (a text field). */
function field(exercise, f) {
  const id = `exercise-${exercise.id}-${f.name}`;
  if (f.kind === 'checkbox') {
    return h('p', { class: 'exercise-field is-check' }, h('input', { type: 'checkbox', id, name: f.name }), ' ', h('label', { for: id }, h('code', {}, f.label)));
  }
  const control = f.kind === 'select'
    ? h('select', { id, name: f.name }, ...f.options.map((o) => h('option', { value: o.value }, o.label)))
    : h('input', { type: 'text', id, name: f.name, inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false', class: f.wide ? 'exercise-number is-wide' : 'exercise-number' });
  if (f.before) {
    // the code's last word and the control stay on one line, so that the choice reads as part of the code
    const cut = f.before.lastIndexOf(' ') + 1;
    return h('p', { class: 'exercise-field is-code' },
      h('label', { for: id }, h('code', {}, f.before.slice(0, cut)), h('span', { class: 'sr-only' }, ` (${f.label})`)),
      h('span', { class: 'exercise-keep' }, h('code', {}, f.before.slice(cut)), control),
      f.after ? h('code', {}, f.after) : null);
  }
  return h('p', { class: 'exercise-field' }, h('label', { for: id }, `${f.label}:`), control, f.after ? h('code', {}, f.after) : null);
}

/** What the form holds: { name: value } with checkboxes as booleans and number fields as typed text. */
function read(form, exercise) {
  return Object.fromEntries(exercise.fields.map((f) => {
    const el = form.elements.namedItem(f.name);
    return [f.name, f.kind === 'checkbox' ? el.checked : el.value];
  }));
}

/**
 * Puts the step's exercise into `article` (a step already drawn), before its results.
 * exercise: { id, title, task(settings), fields: [{ name, kind: 'select' | 'checkbox' | 'number', label, before,
 * after, options }], check(answer, results, settings) -> { solved, text }, solution(results, settings) -> text,
 * hides: [result names], hidesAlso: [selectors in the step] }
 */
export function installExercise(article, exercise, results, settings) {
  // before the results it hides; one that hides nothing (or with questions off) after the step's explanation
  const asking = predictionsOn();
  const first = asking && exercise.hides?.length;
  const anchor = first ? article.querySelector('.results') : article.querySelector('.gpt-block, .notebook-link-wrap');
  const { veil, unveil } = veiler(article, exercise.hides ?? [], exercise.hidesAlso ?? []);
  const titleId = `exercise-${exercise.id}-title`;
  const panel = h('section', { class: 'exercise', 'data-exercise': exercise.id, 'aria-labelledby': titleId });
  if (anchor) anchor.before(panel);
  else article.append(panel);

  const status = h('div', { class: 'exercise-status', role: 'status' });
  const solutionButton = h('button', { type: 'button', class: 'button quiet small exercise-show', 'aria-expanded': 'false' }, 'Show the solution');
  const solution = h('div', { class: 'exercise-solution', hidden: true }, h('p', {}, h('strong', {}, 'Solution. '), exercise.solution(results, settings)));
  const form = h('form', { class: 'exercise-form', novalidate: true }, ...exercise.fields.map((f) => field(exercise, f)),
    h('p', { class: 'exercise-actions' }, h('button', { type: 'submit', class: 'button small' }, 'Check'), ' ', solutionButton));

  const solved = () => {
    unveil();
    remember(key(exercise), true);
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    let outcome;
    try {
      outcome = exercise.check(read(form, exercise), results, settings);
    } catch (error) {
      outcome = { solved: false, text: `This answer could not be checked: ${error.message}` };
    }
    status.replaceChildren(h('p', { class: `exercise-verdict ${outcome.solved ? 'is-right' : 'is-wrong'}`, tabindex: '-1' },
      h('strong', {}, outcome.solved ? 'Solved. ' : 'Not yet. '), outcome.text));
    if (outcome.solved) solved();
    status.firstChild.focus();
  });
  solutionButton.addEventListener('click', () => {
    const open = solution.hidden;
    solution.hidden = !open;
    solutionButton.setAttribute('aria-expanded', String(open));
    solutionButton.textContent = open ? 'Hide the solution' : 'Show the solution';
    if (open) unveil();
  });

  panel.append(
    h('h3', { class: 'exercise-title', id: titleId }, exercise.title),
    h('p', { class: 'exercise-task' }, exercise.task(settings)),
    form,
    status,
    solution,
  );
  if (asking && answers()[key(exercise)] !== true) veil();
}
