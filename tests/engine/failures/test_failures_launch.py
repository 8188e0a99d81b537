"""A job that never started: the loader could not find a library, the program was not found, or
pyxis could not start the job's container. The launch failure is the cause, placed on the host
srun's exit line names, and its owner follows from what failed to load."""

from __future__ import annotations

from engine.failures import Analysis, SourceFile, analyse


def _analyse(text: str, name: str = "slurm-8812.out") -> Analysis:
    return analyse([SourceFile(name, text.encode())])


def _tasks_exit_127(lib: str) -> str:
    loader = (
        f"/scratch/ml/run7/bin/train_llm: error while loading shared libraries: {lib}: "
        "cannot open shared object file: No such file or directory\n"
    )
    return loader * 4 + "srun: error: gpu-b17: tasks 0-3: Exited with exit code 127\n"


def test_a_library_the_job_brings_is_the_jobs_fault_on_the_host_srun_names() -> None:
    result = _analyse(_tasks_exit_127("libmpi_cxx.so.40"))
    first = result.first_failure
    assert first is not None and first.kind == "launch_failure"
    assert first.line_no == 1
    assert result.initiating_node == "gpu-b17"
    assert first.detail["cause"] == "train_llm could not load libmpi_cxx.so.40"
    assert first.detail["tasks"] == "0-3"
    assert result.suggested_owner == "customer"
    assert "the job's build, image or environment lacks it" in result.owner_reasons[0]
    assert "rank None" not in result.summary()
    assert result.confidence == "medium"  # srun's exit 127 says the program could not run


def test_the_gpu_drivers_own_library_missing_is_the_clusters_fault() -> None:
    result = _analyse(_tasks_exit_127("libcuda.so.1"))
    assert result.suggested_owner == "provider"
    assert "libcuda.so.1 is the GPU driver's own library" in result.owner_reasons[0]


def test_a_program_not_found_is_the_jobs() -> None:
    text = (
        "/var/spool/slurmd/job8812/slurm_script: line 31: torchrun: command not found\n"
        "srun: error: gpu-b17: task 0: Exited with exit code 127\n"
    )
    result = _analyse(text)
    assert result.first_failure is not None
    assert result.first_failure.detail["cause"] == "torchrun was not found where the job ran"
    assert (result.initiating_rank, result.initiating_node) == (0, "gpu-b17")
    assert result.suggested_owner == "customer"


def test_a_container_that_did_not_start_names_its_task_and_what_would_decide() -> None:
    text = (
        "slurmstepd: error: pyxis: container start failed with error code: 1\n"
        "slurmstepd: error: pyxis: container exited too soon\n"
        "slurmstepd: error: pyxis: printing engine log file:\n"
        "slurmstepd: error: pyxis:     mkdir: cannot create directory '/lustre/scratch/u9': "
        "Permission denied\n"
        "slurmstepd: error: pyxis: couldn't start container\n"
        "slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1\n"
        "srun: error: gpu-c03: task 5: Exited with exit code 1\n"
        "srun: Terminating StepId=8812.0\n"
    )
    result = _analyse(text)
    first = result.first_failure
    assert first is not None and first.kind == "launch_failure" and first.line_no == 1
    assert (result.initiating_rank, result.initiating_node) == (5, "gpu-c03")
    assert result.suggested_owner == "undetermined"
    reason = result.owner_reasons[0]
    assert reason.startswith("the job's container did not start (pyxis: container start failed")
    assert "what would decide it: the engine log pyxis prints with it" in reason


def test_a_launch_failure_is_not_placed_when_srun_names_several_hosts() -> None:
    text = _tasks_exit_127("libnccl-net.so") + (
        "srun: error: gpu-b18: tasks 4-7: Exited with exit code 127\n"
    )
    result = _analyse(text)
    assert result.first_failure is not None and result.first_failure.kind == "launch_failure"
    assert result.initiating_node is None


def test_a_node_whose_slurmd_could_not_launch_the_tasks_is_the_clusters() -> None:
    text = (
        "srun: error: Task launch for StepId=4412.0 failed on node gpu-a09: "
        "Communication connection failure\n"
        "srun: error: Application launch failed: Communication connection failure\n"
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
    )
    result = _analyse(text)
    first = result.first_failure
    assert first is not None and first.kind == "launch_failure"
    assert result.initiating_node == "gpu-a09"
    assert result.suggested_owner == "provider"
    assert "Slurm's daemon on gpu-a09 could not start the job's tasks" in result.owner_reasons[0]


def test_a_task_launch_that_could_not_execve_the_program_is_the_jobs() -> None:
    text = (
        "srun: error: Task launch for StepId=77.0 failed on node gpu-a09: "
        "Slurmd could not execve job\n"
    )
    result = _analyse(text)
    assert result.suggested_owner == "customer"


def test_a_preempted_job_names_the_preemption_and_what_decides_its_owner() -> None:
    text = (
        "slurmstepd: error: *** STEP 4411.0 ON gpu-a07 CANCELLED AT 2026-11-02T10:14:03 "
        "DUE TO PREEMPTION ***\n"
        "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
        "srun: error: gpu-a07: tasks 0-7: Terminated\n"
        "srun: error: gpu-a08: tasks 8-15: Terminated\n"
    )
    for result in (
        _analyse(text),
        _analyse(
            "JobID|JobName|State|ExitCode|Start|End|NodeList\n"
            "5120|pretrain|PREEMPTED|0:0|2026-11-02T08:00:00|2026-11-02T10:14:03|gpu-a[07-08]\n",
            name="sacct-5120.txt",
        ),
    ):
        first = result.first_failure
        assert first is not None and first.detail["cause"] == "preemption"
        assert result.suggested_owner == "undetermined"
        assert result.owner_reasons[0].startswith("the scheduler preempted the job;")
        assert "the provider reclaiming reserved nodes" in result.owner_reasons[0]


def test_a_harmless_command_not_found_early_in_a_log_does_not_take_the_blame() -> None:
    text = (
        "/var/spool/slurmd/job8812/slurm_script: line 4: module: command not found\n"
        "[rank3]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
    )
    result = _analyse(text)
    assert result.first_failure is not None and result.first_failure.kind == "cuda_error"
    assert result.suggested_owner == "provider"
