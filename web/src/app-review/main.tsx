// The MCP App entry (ui://ripple/review): the review inside an agent host.
// Built into one self-contained HTML document (vite.review.config.ts, then
// inline.mjs) and served by `ripple mcp` as a ui:// resource.
import { render } from 'preact';
import { App as McpApp } from '@modelcontextprotocol/ext-apps';
import { Review } from './review';
import '../style.css';
import './review.css';

const app = new McpApp({ name: 'ripple-review', version: '1' }, {}, { autoResize: true });
render(<Review app={app} />, document.getElementById('app')!);
