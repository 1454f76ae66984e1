"""Upload, ingest jobs, and documents: list, show (with chunks), delete."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile

from bunko.errors import BunkoError
from bunko.generate.guardrails import guard_chunk, guard_text
from bunko.ingest.sources import source_name
from bunko.schema import JobStatus, doc_id_for, to_dict
from bunko.server.auth import KeyAdminError, parse_groups
from bunko.server.deps import ApiError, Caller, caller
from bunko.server.models import RetryRequest
from bunko.server.uploads import UploadRejected, check_type, sanitize_filename, stage, upload_target
from bunko.server.views import chunk_view, document_view, element_view
from bunko.server.worker import UploadJob, new_job_id

router = APIRouter(prefix="/api/collections/{name}", tags=["documents"])
Reader = Annotated[Caller, Depends(caller("reader"))]
Editor = Annotated[Caller, Depends(caller("editor"))]


def _document_groups(c: Caller, groups: str | None) -> list[str] | None:
    """The groups an upload is stored with. A restricted editor may only label within their own groups."""
    try:
        wanted = parse_groups(groups) if groups and groups.strip() else None
    except KeyAdminError as exc:
        raise ApiError(400, "BAD_GROUPS", str(exc)) from None
    if c.who.unrestricted:
        return list(wanted) if wanted is not None else None
    own = set(c.who.groups or ())
    if wanted is None:
        return sorted(own)
    outside = sorted(set(wanted) - own)
    if outside:
        raise ApiError(403, "FORBIDDEN", f"your key may not label documents with groups {', '.join(outside)}; yours: {', '.join(sorted(own))}")
    return list(wanted)


@router.post("/documents", status_code=202, summary="Upload files; they are ingested in the background")
def upload(
    c: Editor,
    files: Annotated[list[UploadFile], File(description="One or more documents (Markdown, text, HTML, PDF, Office, mail…).")],
    groups: Annotated[str | None, Form(description="Comma-separated access groups, e.g. 'hr,finance'.")] = None,
) -> dict[str, Any]:
    served = c.served
    doc_groups = _document_groups(c, groups)
    visible = {d.source for d in served.visible_documents(c.who).values()}
    stored = {d.source for d in served.documents_by_id().values()}
    accepted: list[UploadJob] = []
    rejected: list[dict[str, Any]] = []
    for upload_file in files:
        given = upload_file.filename or ""
        try:
            filename = sanitize_filename(given)
            check_type(filename, served.allowed_extensions)
            target = upload_target(served.kb.path, filename)
            source = source_name(target, served.uploads_root)
            if source in stored and source not in visible:
                raise UploadRejected("FORBIDDEN", f"{filename}: a document of this name exists that you may not access; rename the file", 403)
            job_id = new_job_id()
            staged = served.incoming / job_id
            stage(upload_file.file, staged, served.max_upload_bytes, filename)
        except UploadRejected as exc:
            rejected.append({"filename": given, "error_code": exc.code, "message": exc.message, "status": exc.status})
            continue
        accepted.append(UploadJob(
            job_id=job_id, filename=filename, source=source, owner=c.who.name, groups=doc_groups, staged=staged, target=target,
            owner_groups=None if c.who.unrestricted else c.who.groups,
        ))
    try:
        served.worker.submit(accepted)  # the job rows are on disk before the 202
    except BaseException:
        for job in accepted:
            job.staged.unlink(missing_ok=True)
        raise
    if not accepted:
        statuses = {r["status"] for r in rejected} or {400}
        status = statuses.pop() if len(statuses) == 1 else 400
        first = rejected[0] if rejected else {"error_code": "NO_FILES", "message": "no files in the upload"}
        raise ApiError(status, first["error_code"], first["message"], rejected=rejected)
    return {"jobs": [j.public() for j in accepted], "rejected": rejected}


@router.get("/jobs", summary="Upload jobs with their state and, on failure, an error code and reason")
def list_jobs(
    c: Editor,
    engine: Annotated[bool, Query(description="Also the engine's job history (every ingest run, CLI included); unrestricted keys only.")] = False,
    limit: Annotated[int, Query(ge=1, le=5000)] = 200,
) -> dict[str, Any]:
    jobs = c.served.worker.jobs(limit, owner=None if c.who.unrestricted else c.who.name)
    out: dict[str, Any] = {"jobs": [j.public() for j in jobs], "queued": c.served.worker.queued}
    if engine:
        if not c.who.unrestricted:
            raise ApiError(403, "FORBIDDEN", "the engine's job history names every document; it needs an unrestricted key")
        out["engine_jobs"] = [to_dict(j) for j in c.served.kb.jobs(all_runs=True, limit=limit)]
    return out


@router.get("/jobs/{job_id}", summary="One upload job")
def get_job(c: Editor, job_id: str) -> dict[str, Any]:
    job = c.served.worker.get(job_id)
    if job is None or (not c.who.unrestricted and job.owner != c.who.name):
        raise ApiError(404, "JOB_NOT_FOUND", f"no job {job_id}")
    return job.public()


@router.post("/jobs/retry", summary="Ingest the files of failed jobs again, as `bunko jobs retry` does")
def retry_jobs(c: Editor, body: RetryRequest) -> dict[str, Any]:
    """Runs before it answers (one new run in the engine's history); each file keeps the groups it was uploaded with.
    A restricted key retries its own uploads only. A failed upload whose file was not kept fails again as NOT_FOUND."""
    if not body.job_ids and not body.failed:
        raise ApiError(400, "NOTHING_TO_RETRY", "send job_ids, or failed: true")
    worker, mine = c.served.worker, None if c.who.unrestricted else c.who.name
    engine_ids: list[str] = []
    retried: list[UploadJob] = []
    for job_id in body.job_ids:
        upload = worker.get(job_id)
        if upload is not None and mine is not None and upload.owner != mine:
            upload = None
        if upload is None and mine is not None:
            raise ApiError(404, "JOB_NOT_FOUND", f"no job {job_id} of yours")
        if upload is None:
            engine_ids.append(job_id)
            continue
        if upload.status != JobStatus.FAILED.value or upload.engine_job_id is None:
            raise ApiError(409, "NOT_RETRYABLE", f"job {job_id} is {upload.status}{f' ({upload.error_code})' if upload.error_code else ''}: "
                           "only an upload that failed during ingest can be retried; upload it again")
        engine_ids.append(upload.engine_job_id)
        retried.append(upload)
    if body.failed and mine is not None:  # the key's uploads whose file is still failing (its latest engine job failed)
        failing = {j.job_id for j in c.served.kb.store.failed_jobs()}
        chosen = {j.job_id for j in retried}
        own = [j for j in worker.jobs(5000, owner=mine) if j.engine_job_id in failing and j.job_id not in chosen]
        engine_ids += [str(j.engine_job_id) for j in own]
        retried += own
        if not engine_ids:
            return {"run_id": None, "jobs": []}
    if mine is not None:
        visible = {d.source for d in c.served.visible_documents(c.who).values()}
        stored = {d.source for d in c.served.documents_by_id().values()}
        hidden = sorted({j.source for j in retried if j.source in stored and j.source not in visible})
        if hidden:
            raise ApiError(403, "FORBIDDEN", f"{', '.join(hidden)}: a document of this name exists that you may not access")
    try:
        report = c.served.kb.retry(engine_ids, failed=body.failed and mine is None)
    except BunkoError as exc:
        raise ApiError(400, "RETRY_REFUSED", str(exc)) from None
    outcome = {job.source: job for job in report.jobs}
    for upload in retried:  # the upload's own record tells the retry's outcome too
        job = outcome.get(upload.source)
        if job is not None:
            upload.status, upload.error_code, upload.error_detail = str(job.status), job.error_code, job.error_detail
            upload.engine_job_id, upload.updated_at, upload.timings = job.job_id, job.updated_at, dict(job.timings)
            upload.doc_id = doc_id_for(job.source) if job.status in (JobStatus.READY, JobStatus.SKIPPED) else None
            worker.journal.update(upload)
    return {"run_id": report.run_id, "jobs": [to_dict(j) for j in report.jobs]}


@router.get("/documents", summary="Documents the caller may see")
def list_documents(c: Reader) -> dict[str, Any]:
    docs = sorted(c.served.visible_documents(c.who).values(), key=lambda d: d.source)
    return {"documents": [document_view(d) for d in docs]}


@router.get("/documents/{doc_id}", summary="One document with its chunks (and, on request, its elements)")
def show_document(c: Reader, doc_id: str, elements: bool = False) -> dict[str, Any]:
    doc = c.served.document(c.who, doc_id)
    if doc is None:
        raise ApiError(404, "DOCUMENT_NOT_FOUND", f"no document {doc_id}")
    policy = c.served.kb.config.answer.policy  # strict and regulated mask personal data here as in hits and answers
    view = document_view(doc)
    view["chunks"] = [chunk_view(guard_chunk(ch, policy)) for ch in c.served.kb.chunks(doc.source) if ch.doc_id == doc.doc_id]
    if elements:
        view["elements"] = [
            {**element_view(e), "text": guard_text(e.text, policy, doc.lang or "en")} for e in c.served.kb.elements(doc.source)
        ]
    return view


@router.delete("/documents/{doc_id}", summary="Remove a document from every index; queued uploads of it are cancelled")
def delete_document(c: Editor, doc_id: str) -> dict[str, Any]:
    outcome = c.served.delete(c.who, doc_id)
    if outcome is None:
        raise ApiError(404, "DOCUMENT_NOT_FOUND", f"no document {doc_id}")
    return outcome
