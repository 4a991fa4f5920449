// The OryxOS web console, served by `oryx web` at `/`. Built by scripts/build-console.mjs into
// one hashed script and style sheet under dist/console.
import { render } from 'preact';
import { App } from './components/app.tsx';
import './styles.css';

render(<App />, document.getElementById('app')!);
