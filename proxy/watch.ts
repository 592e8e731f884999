// `--watch` for mcp-proxy: files or globs, changes debounced into one trigger, an optional
// build command first. A failed build keeps the running server and says why.
import { spawn } from "node:child_process";
import { existsSync, type FSWatcher, statSync, watch } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";

/** Changes under these never count (a build writing into them would loop forever). */
export const IGNORED_SEGMENTS = ["node_modules", ".git"];
/** How much of a failed build's output is reported. */
export const BUILD_OUTPUT_TAIL_CHARS = 2_000;

export interface WatchPattern {
  /** The directory or file fs.watch looks at. */
  root: string;
  /** For globs: the path (relative to cwd, with /) must match. */
  matcher?: RegExp;
}

const GLOB_CHARS = /[*?[{]/;

/** Splits a path or glob into the directory to watch and, for globs, what must match. */
export function parsePattern(pattern: string, cwd: string): WatchPattern {
  if (!GLOB_CHARS.test(pattern)) return { root: resolve(cwd, pattern) };
  const parts = pattern.split(/[\\/]/);
  const firstGlob = parts.findIndex((part) => GLOB_CHARS.test(part));
  const base = parts.slice(0, firstGlob).join("/") || ".";
  return { root: resolve(cwd, base), matcher: globToRegExp(relative(cwd, resolve(cwd, pattern)).split(sep).join("/")) };
}

/** `**` spans directories, `*` and `?` stay inside one, `{a,b}` is either, `[...]` a class. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === "*" && glob[i + 1] === "*") {
      out += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (char === "*") out += "[^/]*";
    else if (char === "?") out += "[^/]";
    else if (char === "{") out += "(?:";
    else if (char === "}") out += ")";
    else if (char === "," && out.lastIndexOf("(?:") > out.lastIndexOf(")")) out += "|";
    else if (char === "[") {
      const end = glob.indexOf("]", i);
      if (end === -1) out += "\\[";
      else {
        out += `[${glob.slice(i + 1, end).replace(/^!/, "^")}]`;
        i = end;
      }
    } else out += char.replace(/[.+^$()|\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

export interface WatcherOptions {
  patterns: string[];
  cwd: string;
  debounceMs: number;
  onchange: (paths: string[]) => void;
  onerror: (message: string) => void;
  /**
   * A change seen and set aside (an ignored folder, a path the glob does not match), with how many
   * changes still wait for the debounce: for the debug log, where it also shows that every change
   * made before this one has been seen (file events arrive in order).
   */
  onignored?: (path: string, why: string, pending: number) => void;
}

/** Watches every pattern; returns a function that stops watching. */
export function startWatching(options: WatcherOptions): () => void {
  const watchers: FSWatcher[] = [];
  let pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = () => {
    const paths = [...pending];
    pending = new Set();
    options.onchange(paths);
  };
  for (const text of options.patterns) {
    const pattern = parsePattern(text, options.cwd);
    if (!existsSync(pattern.root)) {
      options.onerror(`--watch ${text}: ${pattern.root} does not exist (watching nothing there)`);
      continue;
    }
    // A single file is watched through its directory: editors save by writing a new file and
    // renaming it over the old one, which a watch on the file itself would lose.
    const isDirectory = statSync(pattern.root).isDirectory();
    const watchedDir = isDirectory ? pattern.root : dirname(pattern.root);
    try {
      const watcher = watch(watchedDir, { recursive: isDirectory }, (_event, filename) => {
        const full = filename ? resolve(watchedDir, filename.toString()) : pattern.root;
        if (!isDirectory && full !== pattern.root) return;
        const shown = relative(options.cwd, full).split(sep).join("/");
        if (shown.split("/").some((segment) => IGNORED_SEGMENTS.includes(segment)))
          return options.onignored?.(shown, "an ignored folder", pending.size);
        if (pattern.matcher && !pattern.matcher.test(shown)) return options.onignored?.(shown, `not matched by ${text}`, pending.size);
        pending.add(shown);
        clearTimeout(timer);
        timer = setTimeout(fire, options.debounceMs);
      });
      watcher.on("error", (error) => options.onerror(`--watch ${text}: ${error.message}`));
      watchers.push(watcher);
    } catch (error) {
      options.onerror(`--watch ${text}: ${(error as Error).message}`);
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}

/**
 * Runs the build command through the shell (it is the user's own command line); the caller runs
 * one build at a time. stop() ends a running build.
 */
export class Builder {
  #running?: ReturnType<typeof spawn>;

  constructor(
    readonly command: string,
    readonly cwd: string,
  ) {}

  build(): Promise<{ ok: boolean; output: string; code: number | null }> {
    return this.#runOnce();
  }

  #runOnce(): Promise<{ ok: boolean; output: string; code: number | null }> {
    return new Promise((done) => {
      const shell =
        process.platform === "win32"
          ? (["cmd.exe", ["/d", "/s", "/c", this.command]] as const)
          : (["/bin/sh", ["-c", this.command]] as const);
      const child = spawn(shell[0], [...shell[1]], {
        cwd: this.cwd,
        stdio: ["ignore", "pipe", "pipe"],
        detached: process.platform !== "win32",
      });
      this.#running = child;
      let output = "";
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString("utf8")).slice(-BUILD_OUTPUT_TAIL_CHARS);
      };
      child.stdout!.on("data", keep);
      child.stderr!.on("data", keep);
      child.once("error", (error) => done({ ok: false, output: error.message, code: null }));
      child.once("close", (code) => {
        this.#running = undefined;
        done({ ok: code === 0, output: output.trim(), code });
      });
    });
  }

  /** Ends a running build and whatever it started. */
  stop(): void {
    const pid = this.#running?.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === "win32") this.#running?.kill();
      else process.kill(-pid, "SIGKILL");
    } catch {
      // Already done.
    }
  }
}
