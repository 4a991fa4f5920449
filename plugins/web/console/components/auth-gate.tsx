import { useState } from 'preact/hooks';

/** Asks for the server's token, once per tab; says clearly when the last one was refused. */
export function AuthGate({ message, onToken }: { message?: string; onToken(token: string): void }) {
  const [token, setToken] = useState('');
  return (
    <form class="auth" onSubmit={(e) => { e.preventDefault(); if (token.trim()) onToken(token.trim()); }}>
      <h1>OryxOS</h1>
      <p>This server needs its token. <code>oryx web</code> printed a console address that carries it
        (<code>…/#token=…</code>); or copy it from <code>.oryxos/web-token</code>.</p>
      {message && <p class="error" role="alert">{message} Check that you copied the whole token, from the server you opened.</p>}
      <label>
        <span>Token</span>
        <input type="password" autocomplete="off" spellcheck={false} value={token} onInput={(e) => setToken(e.currentTarget.value)} autoFocus />
      </label>
      <button type="submit">Sign in</button>
      <p class="hint">The token stays in this tab only (session storage) and goes to this server only.</p>
    </form>
  );
}
