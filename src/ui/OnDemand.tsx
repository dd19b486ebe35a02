/**
 * A part of the page whose code loads on demand (React.lazy). If that code cannot be fetched (the
 * tab lost the site, or the site was updated and the old build's files are gone), the part says so
 * in its place and the rest of the page stays: without a boundary React unmounts the whole app and
 * the page goes blank. The workspace is saved as it changes, so a reload loses nothing. Around the
 * whole app (main.tsx) it does the same for an error while drawing.
 */
import { Component, Suspense, type ReactNode } from 'react';

interface Props {
  /** What the part is, for the message: "the simulator", "the YAML editor". */
  part: string;
  fallback: ReactNode;
  /** Keep showing the fallback under the message when the part fails (a plain text or textarea that still works). */
  keepFallback?: boolean;
  children: ReactNode;
}

/** How browsers and Vite word a dynamic import whose files did not arrive (Chromium, Firefox, Safari, Vite's preload of CSS). */
const LOAD_FAILURE = /dynamically imported module|Importing a module script failed|Unable to preload CSS|Failed to fetch/i;

export class OnDemand extends Component<Props, { error?: unknown }> {
  override state: { error?: unknown } = {};

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    const { error } = this.state;
    if (error === undefined) return <Suspense fallback={this.props.fallback}>{this.props.children}</Suspense>;
    const detail = error instanceof Error ? error.message : String(error);
    return (
      <div className="banner error on-demand-failed" role="alert" data-testid="on-demand-failed">
        <p>
          {LOAD_FAILURE.test(detail)
            ? `The Workbench could not load ${this.props.part}: its files did not arrive (the site is unreachable, or a newer version was published since this tab opened). Your work is saved in this browser; reload the page to load the current version.`
            : `The Workbench failed while drawing ${this.props.part}. Your work is saved in this browser; reload the page.`}
        </p>
        <p className="hint">{detail}</p>
        <button type="button" onClick={() => location.reload()}>
          Reload
        </button>
        {this.props.keepFallback ? this.props.fallback : null}
      </div>
    );
  }
}
