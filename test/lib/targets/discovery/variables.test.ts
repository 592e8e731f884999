// VS Code's and Cursor's own variables in an entry: the predefined ones put in, `${input:id}`
// filled from typed values, and everything else (`${env:VAR}`, `${VAR}`, an input nobody typed)
// left as written for lib/targets/variables.ts or for the asking.
import { expect, test } from "bun:test";
import { sep } from "node:path";
import { inputIds, neededInputs, substitute } from "../../../../lib/targets/discovery/variables.ts";

const ENTRY = {
  command: "${workspaceFolder}/bin/run",
  args: ["--key=${input:key}", "--again=${input:key}", "${input:region}", 3, true, null],
  env: { NESTED: { deeper: ["${input:nested}"] }, HOME_FILE: "${userHome}${pathSeparator}f" },
};

test("the input ids an entry uses, in order of first use, each once, from any depth", () => {
  expect(inputIds(ENTRY)).toEqual(["key", "region", "nested"]);
  expect(inputIds({ command: "run", args: ["${env:KEY}", "${input:}", "$input:x", "${inputs:y}"] })).toEqual([]);
  expect(inputIds("${input:a} ${input:b}")).toEqual(["a", "b"]);
});

test("needed inputs come with the file's definitions; an id the file does not define still needs a value", () => {
  const region = { id: "region", type: "pickString", options: ["eu", "us"] };
  const definitions = [region, { id: "unused", description: "not in the entry" }, { id: "key", password: true }];
  expect(neededInputs(ENTRY, definitions)).toEqual([{ id: "key", password: true }, region, { id: "nested" }]);
  expect(neededInputs({ command: "run" }, definitions)).toEqual([]);
});

test("predefined variables and typed inputs are put in at any depth; non-strings and other variables stay as they are", () => {
  const values = { workspaceFolder: "/work/app", userHome: "/home/u", inputs: { key: "k1", nested: "n" } };
  expect(substitute(ENTRY, values)).toEqual({
    command: "/work/app/bin/run",
    args: ["--key=k1", "--again=k1", "${input:region}", 3, true, null],
    env: { NESTED: { deeper: ["n"] }, HOME_FILE: `/home/u${sep}f` },
  });
  expect(
    substitute(
      { args: ["${workspaceFolderBasename}", "a${/}b", "${env:HOME}", "${HOME}", "${workspaceFolder:x}", "${cwd}"] },
      { workspaceFolder: "/work/app", userHome: "/home/u" },
    ),
  ).toEqual({ args: ["app", `a${sep}b`, "${env:HOME}", "${HOME}", "${workspaceFolder:x}", "${cwd}"] });
});

test("a value that itself spells a variable is not expanded again, and the entry given is not changed", () => {
  const entry = { args: ["${input:a}", "${workspaceFolder}"] };
  const values = { workspaceFolder: "${userHome}", userHome: "/home/u", inputs: { a: "${workspaceFolder}" } };
  expect(substitute(entry, values)).toEqual({ args: ["${workspaceFolder}", "${userHome}"] });
  expect(entry).toEqual({ args: ["${input:a}", "${workspaceFolder}"] });
  // An input named like an Object.prototype member is typed like any other, or left as written.
  expect(substitute({ a: "${input:toString}" }, { workspaceFolder: "/w", userHome: "/h", inputs: {} })).toEqual({
    a: "${input:toString}",
  });
});
