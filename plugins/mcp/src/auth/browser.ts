import { spawn } from 'node:child_process';

/**
 * Opens a URL in the person's browser when there is one to open: `$BROWSER` when set (the
 * convention of `xdg-open`, git and Python's webbrowser: `%s` stands for the URL, else it is
 * the last argument), `open` on macOS, `start` on Windows, `xdg-open` on Linux only when a
 * display is there (`DISPLAY` or `WAYLAND_DISPLAY`). Returns the program it started, or
 * undefined when it opened nothing: the URL is printed either way, by the caller.
 *
 * @example
 * const opened = openBrowser('https://auth.example.com/authorize?…');
 * console.log(opened ? `opened with ${opened}` : 'open this URL yourself');
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform): string | undefined {
  let command: string;
  let args: string[];
  if (env.BROWSER) {
    const words = env.BROWSER.split(':')[0]!.trim().split(/\s+/);
    command = words[0]!;
    args = words.slice(1).some((w) => w.includes('%s')) ? words.slice(1).map((w) => w.replace('%s', url)) : [...words.slice(1), url];
  } else if (platform === 'darwin') {
    [command, args] = ['open', [url]];
  } else if (platform === 'win32') {
    [command, args] = ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]];
  } else if (env.DISPLAY || env.WAYLAND_DISPLAY) {
    [command, args] = ['xdg-open', [url]];
  } else {
    return undefined;
  }
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, env });
    child.on('error', () => {}); // a browser that cannot start leaves the printed URL
    child.unref();
    return command;
  } catch {
    return undefined;
  }
}
