// interpreter.ts: which Python captures the model, in the seed's order:
//   1. the workspace's remembered choice (workspaceState 'tvis.python'),
//   2. the tensorviz.pythonPath setting,
//   3. the Python extension's active interpreter, when it is installed.
// A set path that does not exist refuses, naming where it came from; nothing
// falls through to the next source. With none of the three, the request is
// refused too: the interpreter is always passed to tvis explicitly.
import * as vscode from 'vscode';
import { isExecutableFile, Refusal } from './tvis_cli';

export interface Interpreter { path: string; origin: string }

export const REMEMBERED_PYTHON_KEY = 'tvis.python';

async function pythonExtensionInterpreter(folder: vscode.Uri | undefined): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) return undefined;
  const api: any = ext.isActive ? ext.exports : await ext.activate();
  try {
    const envs = api?.environments;
    if (envs?.getActiveEnvironmentPath) {
      const active = envs.getActiveEnvironmentPath(folder);
      const resolved = await envs.resolveEnvironment(active);
      const p = resolved?.executable?.uri?.fsPath || active?.path;
      if (p) return p;
    }
    const cmd = api?.settings?.getExecutionDetails?.(folder)?.execCommand;
    if (Array.isArray(cmd) && cmd.length) return cmd[0];
  } catch { /* no usable answer: treated as not set */ }
  return undefined;
}

export async function resolveInterpreter(state: vscode.Memento, folder: vscode.Uri | undefined): Promise<Interpreter> {
  const remembered = state.get<string>(REMEMBERED_PYTHON_KEY);
  if (remembered) {
    if (!isExecutableFile(remembered))
      throw new Refusal(`The remembered interpreter ${remembered} does not exist any more; tvis does not switch to another interpreter. ` +
        'Choose one again (tvis: Select Interpreter).');
    return { path: remembered, origin: 'remembered choice' };
  }
  const set = (vscode.workspace.getConfiguration('tensorviz', folder).get<string>('pythonPath') || '').trim();
  if (set) {
    if (!isExecutableFile(set))
      throw new Refusal(`tensorviz.pythonPath: ${set}: no such executable; tvis does not switch to another interpreter. Fix the setting.`);
    return { path: set, origin: 'tensorviz.pythonPath' };
  }
  const fromExt = await pythonExtensionInterpreter(folder);
  if (fromExt) {
    if (!isExecutableFile(fromExt))
      throw new Refusal(`The Python extension's interpreter ${fromExt} does not exist; select another one or set tensorviz.pythonPath.`);
    return { path: fromExt, origin: 'Python extension' };
  }
  throw new Refusal('No Python interpreter: set tensorviz.pythonPath, or select one with the Python extension.');
}

// Remembers `python` as this workspace's interpreter (undefined forgets it).
// Refuses a path that is not an executable file: a remembered choice is
// never a guess.
export async function rememberInterpreter(state: vscode.Memento, python: string | undefined): Promise<void> {
  if (python !== undefined && !isExecutableFile(python))
    throw new Refusal(`${python}: no such executable; nothing was remembered.`);
  await state.update(REMEMBERED_PYTHON_KEY, python);
}

// "tvis: Select Interpreter": an input box for the path (empty: forget the
// remembered one, so tensorviz.pythonPath and then the Python extension decide).
export async function selectInterpreter(state: vscode.Memento): Promise<string | undefined> {
  const current = state.get<string>(REMEMBERED_PYTHON_KEY) || '';
  const typed = await vscode.window.showInputBox({
    title: 'tvis: the Python interpreter for this workspace',
    prompt: 'Path of a Python with torch (empty: forget the remembered one; tensorviz.pythonPath, then the Python extension decide)',
    value: current,
    validateInput: (v) => (v.trim() && !isExecutableFile(v.trim()) ? `${v.trim()}: no such executable` : undefined),
  });
  if (typed === undefined) return undefined;   // cancelled: nothing changes
  await rememberInterpreter(state, typed.trim() || undefined);
  return typed.trim();
}
