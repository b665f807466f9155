// CodeMirror 6, loaded only by the query page (a separate chunk).
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { sql } from '@codemirror/lang-sql';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, placeholder } from '@codemirror/view';

export function createEditor(parent: HTMLElement, doc: string, onChange: (s: string) => void, onRun: () => void, label: string): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        history(),
        bracketMatching(),
        sql(),
        syntaxHighlighting(defaultHighlightStyle),
        placeholder("select * from {{ ref('model') }}"),
        keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.updateListener.of((u) => u.docChanged && onChange(u.state.doc.toString())),
        EditorView.contentAttributes.of({ 'aria-label': label }),
      ],
    }),
  });
}
