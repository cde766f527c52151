import { useEffect, useState } from "react";
import { Link } from "react-router";
import { Alert, errorMessage } from "../../../components/form";
import { paths } from "../../../config/paths";
import { api } from "../../../lib/api-client";
import { downloadExport, getFilesUsage, type FilesUsage } from "../api/account";

/** n bytes for people, in powers of 1000 as file managers show them (core.FormatBytes). */
export function formatBytes(n: number): string {
  const unit = (v: number, u: string) => `${v.toFixed(1).replace(/\.0$/, "")} ${u}`;
  if (n >= 1e9) return unit(n / 1e9, "GB");
  if (n >= 1e6) return unit(n / 1e6, "MB");
  if (n >= 1e3) return unit(n / 1e3, "KB");
  return n === 1 ? "1 byte" : `${n} bytes`;
}

/** Hands blob to the browser to save as name. */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const today = () => new Date().toISOString().slice(0, 10);

/** The quota: a meter of the bytes used against the plan's, the files' count, or Starter's upgrade hint. */
function Quota({ usage }: { usage: FilesUsage }) {
  if (usage.limit <= 0) {
    return (
      <p className="muted">
        Files are part of the Pro and Business plans. <Link to={paths.pricing.href()}>Upgrade to attach files</Link> to your messages.
      </p>
    );
  }
  const share = Math.min(1, usage.used / usage.limit);
  const text = `${formatBytes(usage.used)} of ${formatBytes(usage.limit)} used`;
  return (
    <>
      <div
        className={`quota-meter${share >= 0.9 ? " quota-meter-full" : ""}`}
        role="meter"
        aria-label="Storage for files"
        aria-valuemin={0}
        aria-valuemax={usage.limit}
        aria-valuenow={usage.used}
        aria-valuetext={text}
      >
        <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <p className="quota-figures">
        <strong>{text}</strong>
        <span className="muted">
          {usage.files === 1 ? "1 file" : `${usage.files} files`} · up to {formatBytes(usage.perMessage)} and {usage.maxFiles} files a message
        </span>
      </p>
    </>
  );
}

/**
 * Settings → General's files and data: the quota of the account's files (GET /api/me/files, read
 * fresh on each visit) and the export, as JSON or, when the account has files, as a zip of that
 * JSON and the files.
 */
export function FilesAndData() {
  const [usage, setUsage] = useState<FilesUsage>();
  const [quotaError, setQuotaError] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<"json" | "zip">();

  useEffect(() => {
    let live = true;
    getFilesUsage().then(
      (u) => live && setUsage(u),
      (caught: unknown) => live && setQuotaError(errorMessage(caught)),
    );
    return () => {
      live = false;
    };
  }, []);

  const download = async (format: "json" | "zip") => {
    setError(undefined);
    setBusy(format);
    try {
      if (format === "zip") {
        const { blob, name } = await downloadExport("zip");
        save(blob, name);
      } else {
        const data = await api<unknown>("me/export");
        save(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }), `sendlater-export-${today()}.json`);
      }
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(undefined);
    }
  };
  const hasFiles = (usage?.files ?? 0) > 0;

  return (
    <section aria-labelledby="data-title">
      <h2 id="data-title">Files and your data</h2>
      <h3 className="settings-subtitle">Files</h3>
      {usage ? <Quota usage={usage} /> : quotaError ? <p className="muted">{quotaError}</p> : <p className="muted">Loading…</p>}
      <h3 className="settings-subtitle">Export</h3>
      <p className="muted">
        Everything stored about you: your profile, your messages with their timelines, your access tokens and linked accounts
        {hasFiles ? ", and with the zip, your files (a sealed message's as they were sealed)" : ""}.
      </p>
      {error && <Alert>{error}</Alert>}
      <div className="export-buttons">
        {hasFiles && (
          <button type="button" className="outline" disabled={busy !== undefined} aria-busy={busy === "zip"} onClick={() => void download("zip")}>
            Download with files (zip)
          </button>
        )}
        <button
          type="button"
          className={hasFiles ? "secondary outline" : "outline"}
          disabled={busy !== undefined}
          aria-busy={busy === "json"}
          onClick={() => void download("json")}
        >
          {hasFiles ? "Download without files (JSON)" : "Download your data (JSON)"}
        </button>
      </div>
    </section>
  );
}
