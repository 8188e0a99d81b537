from celery import shared_task

from annexes.services import annex_render_job


@shared_task(acks_late=True, reject_on_worker_lost=True)
def render_annex(job_id: int) -> str:
    job = annex_render_job(job_id=job_id)
    return f"annex {job.annex_id} ({'unchanged' if job.reused else 'issued'})"
