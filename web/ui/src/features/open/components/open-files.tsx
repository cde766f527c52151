import { useId, useState } from "react";
import { Paperclip } from "../../../components/lucide";
import { ApiError, errorOfReply } from "../../../lib/api-client";
import type { FileKeys } from "../../../lib/sealed-file";
import { formatSize, saveBlob } from "../../../lib/uploads";
import type { SealedFile } from "../api/open";

/** A sealed message's file, its opened size known (the server knows only the sealed one). */
export type OpenedFile = SealedFile & { opened: number };

type Progress = { phase: "downloading"; got: number } | { phase: "opening" };

/** Reads a reply's bytes, telling how many came (the link's replies say their length). */
async function readAll(response: Response, onBytes: (got: number) => void): Promise<Blob> {
  if (!response.body) return response.blob();
  const reader = response.body.getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(new Uint8Array(value));
    got += value.length;
    onBytes(got);
  }
  return new Blob(parts);
}

const failed = (error: unknown, name: string) => {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && "kind" in error) {
    return error.kind === "wrong-passphrase"
      ? `${name} does not open with the message's passphrase: it is damaged, or it was sealed with another. Tell the sender.`
      : `${name} is not a sealed file this version of Sendlater can open.`;
  }
  return "The download failed: check your connection and try again.";
};

/**
 * The files of a sealed message, once its letter is open: each downloads from the recipient's
 * own link, opens here with the passphrase's keys, and is saved through a blob URL. The server
 * only ever held the sealed bytes.
 */
export function OpenFiles({ messageId, files, keys }: { messageId: string; files: OpenedFile[]; keys: FileKeys }) {
  const id = useId();
  return (
    <section className="sealed-files" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <Paperclip size={20} aria-hidden="true" className="title-icon" /> Files
      </h2>
      <p>Sealed with the same passphrase: each opens here, in your browser, as you download it.</p>
      <ul className="files-list">
        {files.map((file) => (
          <OpenFileRow key={file.id} file={file} messageId={messageId} keys={keys} />
        ))}
      </ul>
    </section>
  );
}

function OpenFileRow({ file, messageId, keys }: { file: OpenedFile; messageId: string; keys: FileKeys }) {
  const id = useId();
  const [progress, setProgress] = useState<Progress>();
  const [error, setError] = useState<string>();
  const download = async () => {
    setError(undefined);
    setProgress({ phase: "downloading", got: 0 });
    try {
      const response = await fetch(file.url);
      if (!response.ok) throw errorOfReply(response.status, await response.text());
      const sealed = await readAll(response, (got) => setProgress({ phase: "downloading", got }));
      setProgress({ phase: "opening" });
      const { openFile } = await import("../../../lib/sealed-file");
      saveBlob(await openFile(keys, messageId, sealed), file.name);
    } catch (e) {
      setError(failed(e, file.name));
    } finally {
      setProgress(undefined);
    }
  };
  const percent = progress?.phase === "downloading" && file.size > 0 ? Math.min(100, Math.round((progress.got / file.size) * 100)) : 0;
  return (
    <li className={error ? "file-row file-failed" : "file-row"}>
      <div className="file-head">
        <span className="file-name" id={`${id}-name`}>
          {file.name}
        </span>
        <small className="file-status" id={`${id}-status`} aria-live="polite">
          {progress?.phase === "downloading" ? `Downloading… ${percent}%` : progress?.phase === "opening" ? "Opening…" : formatSize(file.opened)}
        </small>
        <span className="file-actions">
          <button
            type="button"
            className="outline secondary"
            onClick={() => void download()}
            disabled={progress !== undefined}
            aria-busy={progress !== undefined}
            aria-label={`Download ${file.name}`}
          >
            Download
          </button>
        </span>
      </div>
      {progress?.phase === "downloading" && (
        <progress value={percent} max={100} aria-labelledby={`${id}-name`} aria-valuetext={`${percent}%`} aria-describedby={`${id}-status`} />
      )}
      {error !== undefined && (
        <p className="files-alert" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}
