// The host side of the browser test, run in the page: the extension's AppBridge puts a view's page in a
// sandboxed iframe (scripts only, an origin of its own), answers its initialize with a host context (the
// theme), sends the tool's arguments and result, follows its size, and records the links it asks to open.
import { AppBridge, type McpUiHostContext, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

type Theme = 'light' | 'dark';
type CallToolResult = Parameters<AppBridge['sendToolResult']>[0];

interface Harness {
  /**
   * Without a result: the view gets the arguments only, as while a long call runs. With `tool`, the host names
   * the tool in its context and lets the view call it (through the test's client).
   */
  show(viewPath: string, theme: Theme, args: Record<string, unknown>, result: CallToolResult | null, tool?: string): Promise<void>;
  /** The result of the call shown, sent later. */
  result(result: CallToolResult): Promise<void>;
  cancel(reason: string): Promise<void>;
  setTheme(theme: Theme): Promise<void>;
  opened: string[];
  height: number;
}

declare global {
  interface Window {
    harness: Harness;
    /** The test's MCP client, calling the tool the view asks for (exposed by the test). */
    callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
  }
}

let bridge: AppBridge | null = null;

const context = (theme: Theme): McpUiHostContext => ({
  theme,
  displayMode: 'inline',
  platform: 'web',
  locale: 'en-NZ',
  containerDimensions: { width: 760, maxHeight: 4000 },
});

window.harness = {
  opened: [],
  height: 0,
  async show(viewPath, theme, args, result, tool) {
    await bridge?.close();
    document.documentElement.dataset.theme = theme;
    const frame = document.createElement('iframe');
    frame.title = 'The tool view';
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.style.cssText = 'width:760px;height:200px;border:0;display:block';
    document.body.replaceChildren(frame);
    const view = frame.contentWindow as Window;
    const toolInfo = tool ? { toolInfo: { id: 1, tool: { name: tool, inputSchema: { type: 'object' as const } } } } : {};
    bridge = new AppBridge(
      null,
      { name: 'views-test-host', version: '0.0.0' },
      { openLinks: {}, ...(tool ? { serverTools: {} } : {}) },
      { hostContext: { ...context(theme), ...toolInfo } },
    );
    if (tool) bridge.oncalltool = async (params) => window.callTool(params);
    const initialized = new Promise<void>((resolve) => {
      (bridge as AppBridge).oninitialized = () => resolve();
    });
    bridge.onopenlink = async ({ url }) => {
      window.harness.opened.push(url);
      return {};
    };
    bridge.onsizechange = ({ height }) => {
      if (height === undefined) return;
      window.harness.height = height;
      frame.style.height = `${height}px`;
    };
    await bridge.connect(new PostMessageTransport(view, view));
    frame.src = viewPath;
    await initialized;
    await bridge.sendToolInput({ arguments: args });
    if (result) await bridge.sendToolResult(result);
  },
  async result(result) {
    await bridge?.sendToolResult(result);
  },
  async cancel(reason) {
    await bridge?.sendToolCancelled({ reason });
  },
  async setTheme(theme) {
    document.documentElement.dataset.theme = theme;
    await bridge?.sendHostContextChange({ theme });
  },
};
