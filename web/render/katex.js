// KaTeX and its stylesheet, loaded after the first step's numbers are on screen (main.js imports this
// module on demand, so neither holds up the first numbers).
import katex from 'katex';
import 'katex/dist/katex.min.css';

export default katex;
