// A minimal MCP Apps host, for the browser test of the review app
// (e2e/apphost): it connects to `ripple mcp --http` with the TypeScript
// client, reads the ui:// resource the tool links, embeds it in a sandboxed
// iframe and bridges it with the extension's own host side (AppBridge).
// Not shipped: built into e2e/apphost/testdata/host.html.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';

interface HostState {
  status: string;
  /** tools the app called through the bridge, in order */
  calls: string[];
  error?: string;
}

const state: HostState = { status: 'starting', calls: [] };
(window as unknown as { rippleHost: HostState }).rippleHost = state;

function set(status: string) {
  state.status = status;
  document.getElementById('host-status')!.textContent = status;
}

async function main() {
  const q = new URLSearchParams(location.search);
  const toolName = q.get('tool') ?? 'impact_analysis';
  const args = JSON.parse(q.get('args') ?? '{}');
  const client = new Client(
    { name: 'ripple-test-host', version: '1' },
    { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', location.href));
  // Record the tools the app calls, as they leave for the server.
  let recording = false;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as { method?: string; params?: { name?: string } };
    if (recording && m.method === 'tools/call' && m.params?.name) state.calls.push(m.params.name);
    return send(message, options);
  };
  await client.connect(transport);
  set('connected');

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  if (!tool) throw new Error(`tools/list has no ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${toolName} links no ui:// resource`);
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE || !('text' in content)) throw new Error(`${uri}: mime ${content.mimeType}`);

  // What the model's call returned: the host hands it to the app.
  const result = await client.callTool({ name: toolName, arguments: args });
  set('called');

  recording = true;

  const iframe = document.createElement('iframe');
  // No allow-same-origin: the app gets an opaque origin, as in real hosts.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'Ripple review app';
  iframe.style.width = q.get('width') ?? '400px';
  iframe.style.height = '1400px';
  iframe.style.border = '0';
  // ?theme=light|dark: the host's theme; without it the app follows the system.
  const theme = q.get('theme') === 'dark' ? 'dark' : q.get('theme') === 'light' ? 'light' : undefined;
  const bridge = new AppBridge(
    client,
    { name: 'ripple-test-host', version: '1' },
    { serverTools: {}, logging: {} },
    { hostContext: { ...(theme ? { theme } : {}), displayMode: 'inline', toolInfo: { tool } } },
  );
  bridge.oninitialized = () => {
    set('initialized');
    void bridge.sendToolInput({ arguments: args });
    void bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]).then(() => set('result sent'));
  };
  document.getElementById('frame')!.append(iframe);
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  // ?code_change=TEXT (set after connect, which installs the plain
  // forwarding): get_model answers carry code_change.summary (a field
  // get_model gains on another branch), so the test can see the app show it.
  const codeChange = q.get('code_change');
  if (codeChange) {
    bridge.oncalltool = async (params) => {
      const res = await client.callTool(params);
      if (params.name === 'get_model' && res.structuredContent) {
        (res.structuredContent as Record<string, unknown>).code_change = { summary: codeChange };
      }
      return res;
    };
  }
  iframe.srcdoc = content.text as string;
}

main().catch((e: Error) => {
  state.error = e.message;
  set('error');
  document.getElementById('host-log')!.textContent = String(e.stack ?? e);
});
