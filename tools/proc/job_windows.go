package proc

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a child's tree is held in a Job Object: the child starts
// suspended, is put in a job of its own before it runs a single
// instruction, and everything it starts belongs to the job too (a job does
// not allow breaking away unless it says so). Terminating the job ends the
// whole tree, and the job is created with KILL_ON_JOB_CLOSE, so the tree
// also dies when the job is closed or when myclaw exits for any reason.

// ntResumeProcess resumes every thread of a process: os/exec keeps no
// handle to the main thread of a child started suspended.
var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// procSetSession makes cmd start suspended (attachJob resumes it), with a
// console of its own that has no window, so that it can neither read
// myclaw's console input nor get its Ctrl+C.
func procSetSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW
}

// winJob is the Job Object a child runs in, with everything it started.
type winJob struct {
	mu  sync.Mutex
	job windows.Handle // 0 once closed
}

// attachJob puts the suspended process pid in a new job and resumes it. On
// failure the process is terminated, never left running outside a job.
func attachJob(pid int) (*winJob, error) {
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME, false, uint32(pid))
	if err != nil {
		return nil, fmt.Errorf("open the new process: %w", err)
	}
	defer windows.CloseHandle(ph)
	fail := func(what string, err error) (*winJob, error) {
		_ = windows.TerminateProcess(ph, 1)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fail("create a job object", err)
	}
	g := &winJob{job: job}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		g.close()
		return fail("set up the job object", err)
	}
	if err := windows.AssignProcessToJobObject(job, ph); err != nil {
		g.close()
		return fail("put the process in a job object", err)
	}
	if status, _, _ := ntResumeProcess.Call(uintptr(ph)); status != 0 {
		g.close()
		return fail("resume the process", windows.NTStatus(status))
	}
	return g, nil
}

// kill ends every process of the job.
func (g *winJob) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
	}
}

// close releases the job, which also ends whatever is still in it.
func (g *winJob) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		windows.CloseHandle(g.job)
		g.job = 0
	}
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobBasicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// active returns how many processes are alive in the job.
func (g *winJob) active() (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return 0, errors.New("job closed")
	}
	var info jobBasicAccounting
	err := windows.QueryInformationJobObject(g.job, windows.JobObjectBasicAccountingInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return int(info.ActiveProcesses), err
}
