//! Lines that report a failure of another kind than a GPU node's:
//! - a Python package manager that could not resolve, download, build or install what it was
//!   asked for, and the install command that asked; apt, curl and a registry that could not
//!   fetch or verify a package or an image (a name that does not resolve, a reset connection, a
//!   missing key, a pull rate limit, a layer that could not be unpacked);
//! - Kubernetes' scheduler finding no node with enough of resources that are not GPUs (`0/41
//!   nodes are available: 35 Insufficient cpu`; with `nvidia.com/gpu` among them it is looked up);
//! - a TLS peer that the machine does not trust (a proxy's or a private CA's certificate, a name
//!   that does not match), as OpenSSL and Go word it: not a clock that is behind, whose own
//!   errors ("certificate is not yet valid", "has expired") are not among these;
//! - the Hugging Face Hub refusing a gated or private model to a user without access;
//! - a port that another process already holds (`EADDRINUSE`);
//! - a command line that the program's argument parser rejected (argparse, click, clap);
//! - a traceback's echo of the Python source that raised, without a message (`raise OSError(`),
//!   and an exception's own line when it holds no message (torchrun's summary line
//!   `torch.distributed.elastic.multiprocessing.errors.ChildFailedError:`, whose cause is in the
//!   lines around it);
//! - Python's exceptions for mistakes in the program itself (`IndexError`, `KeyError`,
//!   `NameError`, `SyntaxError`, `IndentationError`, `ZeroDivisionError`): a GPU failure reaches
//!   Python as a `RuntimeError` or an `OSError`, never as one of these; and the interpreter's own
//!   wording of such mistakes when a program prints only the message (`list index out of range`,
//!   `'NoneType' object has no attribute`, `got an unexpected keyword argument`).
//!
//! The similar tier does not look these lines up. Their words are often a GPU stack's (`No
//! matching distribution found for nvidia-cudnn-cu12`, `[c10d] The server socket has failed to
//! bind`), so they resemble some runbook's prose or examples, yet no runbook is their cause. Until
//! this list, each such line was a counterexample of the runbook it resembled (clock-skew,
//! nccl-socket-ifname-misconfig, cuda-out-of-memory, cudnn-version-mismatch, jit-build-stale-lock
//! hold some still, for their signatures). The forms are the tools' own messages (pip:
//! `src/pip/_internal/` and urllib3's retry warning; conda and mamba; uv; OpenSSL's
//! `X509_verify_cert_error_string`; Go's `crypto/x509`; `strerror(EADDRINUSE)`), and no runbook's
//! signature example is one of them (checked by a test). Signatures still see every line: a
//! runbook that names one of these messages as its cause matches it as before.

use std::sync::LazyLock;

/// What pip, conda, mamba and uv print when a requirement cannot be met, fetched or built; what
/// TLS libraries print for a peer they do not trust; what a bind to a taken port returns.
const MESSAGES: &[&str] = &[
    // pip's resolver and finder.
    "Could not find a version that satisfies the requirement",
    "No matching distribution found for",
    "because these package versions have conflicting dependencies",
    "ResolutionImpossible",
    "pip's dependency resolver does not currently take into account",
    // pip building a package.
    "metadata-generation-failed",
    "Encountered error while generating package metadata",
    "subprocess-exited-with-error",
    "This error originates from a subprocess, and is likely not a problem with pip",
    "Failed building wheel for",
    "Failed to build installable wheels",
    // pip refusing a wheel built for another Python or platform (`ERROR: flash_attn-...-cp310-
    // cp310-linux_x86_64.whl is not a supported wheel on this platform.`).
    "is not a supported wheel on this platform",
    // pip's download retries (urllib3).
    "after connection broken by 'NewConnectionError(",
    "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution",
    // urllib3's read timeout, as pip prints it while downloading (`ReadTimeoutError:
    // HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.`) and as the
    // traceback echoes the line that raised it.
    "ReadTimeoutError(",
    "ReadTimeoutError: HTTPSConnectionPool(",
    // conda and mamba.
    "UnsatisfiableError",
    "PackagesNotFoundError",
    "ResolvePackageNotFound",
    "Found conflicts! Looking for incompatible packages",
    "LibMambaUnsatisfiableError",
    "Could not solve for environment specs",
    // uv.
    "No solution found when resolving dependencies",
    // apt, curl and Docker Hub.
    "Temporary failure resolving '",
    "NO_PUBKEY",
    "The following signatures couldn't be verified because the public key is not available",
    "Recv failure: Connection reset by peer",
    "toomanyrequests: You have reached your pull rate limit",
    // A registry without the image tag asked for (`manifest for nvidia/cuda:12.0-base-ubuntu20.04
    // not found: manifest unknown`): the registry API's MANIFEST_UNKNOWN, as Docker and Podman
    // print it.
    "manifest unknown",
    // Docker unpacking a pulled image's layer (`failed to register layer: ... no space left on
    // device`): the host's disk for images, before any container runs, never its /dev/shm.
    "failed to register layer",
    // TensorFlow not finding the CUDA runtime library, and its own note that follows: on a
    // machine without a GPU it says to ignore it, and on one with a GPU it is a toolkit that is
    // not installed, which no runbook is about.
    "Could not load dynamic library 'libcudart.so",
    "Ignore above cudart dlerror if you do not have a GPU set up",
    // OpenSSL's verify errors for an untrusted chain (1.1 and 3.x spellings), Go's, and a name
    // that does not match.
    "self signed certificate in certificate chain",
    "self-signed certificate in certificate chain",
    "unable to get local issuer certificate",
    "x509: certificate signed by unknown authority",
    "Hostname mismatch, certificate is not valid for",
    // The Hugging Face Hub refusing a model the user may not download (a gated or private
    // repository, a token missing), as huggingface_hub and transformers word it.
    "Cannot access gated repo for url",
    "You are trying to access a gated repo",
    "GatedRepoError",
    "You must have access to it and be authenticated to access it",
    // CPython's messages for a program's own mistakes, printed without the exception's name
    // (`!!! Exception during processing !!! list index out of range`).
    "list index out of range",
    "tuple index out of range",
    "string index out of range",
    "'NoneType' object has no attribute",
    "'NoneType' object is not subscriptable",
    "got an unexpected keyword argument",
    // A command line the program's argument parser rejected (Python's argparse and click,
    // Rust's clap): a usage mistake, reported before the program does anything.
    "error: unrecognized arguments:",
    "error: the following arguments are required:",
    "Error: No such option: ",
    "Error: Invalid value for '",
    "error: unexpected argument '",
    // A port another process holds.
    "Address already in use",
    "address already in use",
    "EADDRINUSE",
];

/// An install command as someone typed or pasted it (`$ pip install flash-attn ...`): it says
/// what was asked for, not what went wrong.
const COMMAND: &str = r"^\s*(?:[$#>]\s*)?(?:sudo\s+)?(?:pip3?|python3?\s+-m\s+pip|conda|mamba|micromamba|uv(?:\s+pip)?)\s+install\b";

/// A traceback's echo of the source line that raised, when it holds no message (`    raise
/// OSError(` with its arguments on the next lines, or a bare `raise RuntimeError`): it says which
/// code ran, and the exception's own line after it says what happened. (`raise
/// AssertionError("Torch not compiled with CUDA enabled")` carries its message and is looked up.)
const RAISE: &str = r"^\s*raise\s+[A-Za-z_][\w.]*\s*\(?\s*$";

/// An exception's line without a message (`...errors.ChildFailedError:`): it names the kind of
/// failure a wrapper reports, not what failed.
const EMPTY_EXCEPTION: &str = r"^\s*[A-Za-z_][\w.]*(?:Error|Exception):\s*$";

/// argparse's and clap's rejection of one argument's value (`error: argument --dtype: invalid
/// choice: 'bf16'`, `error: invalid value 'True' for '--disable-custom-kernels'`).
const USAGE: &str =
    r"\berror: (?:argument -{1,2}[\w-]+(?:/-{1,2}[\w-]+)*: |invalid value '[^']*' for '-)";

/// Python's exceptions for a mistake in the program (see the module).
const USER_CODE: &str = r"(?:^|[\s:])(?:IndexError|KeyError|NameError|SyntaxError|IndentationError|ZeroDivisionError): ";

static FOREIGN: LazyLock<regex::Regex> = LazyLock::new(|| {
    let messages: Vec<String> = MESSAGES.iter().map(|m| regex::escape(m)).collect();
    regex::Regex::new(&format!(
        "{}|{COMMAND}|{USER_CODE}|{RAISE}|{EMPTY_EXCEPTION}|{USAGE}",
        messages.join("|")
    ))
    .expect("valid")
});

/// Whether `line` is a failure of another kind or an install command (see the module).
pub fn is_foreign(line: &str) -> bool {
    FOREIGN.is_match(line)
        || line.contains("nodes are available:")
            && !line.to_ascii_lowercase().contains("nvidia.com/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_of_other_kinds_and_install_commands_are_foreign() {
        for line in [
            "2022-05-18 09:48:17.694351: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory",
            "docker: Error response from daemon: manifest for nvidia/cuda:12.0-base-ubuntu20.04 not found: manifest unknown: manifest unknown",
            "docker: failed to register layer: Error processing tar file(exit status 1): write /usr/local/cuda-11.4/bin/nvdisasm: no space left on device.",
            "pip._vendor.urllib3.exceptions.ReadTimeoutError: HTTPSConnectionPool(host='files.pythonhosted.org', port=443): Read timed out.",
            "ERROR: Could not find a version that satisfies the requirement flash-attn (from versions: none)",
            "ERROR: No matching distribution found for flash-attn.",
            "ERROR: Cannot install -r requirements.txt (line 1) and torch==2.1.1 because these package versions have conflicting dependencies.",
            "  × Encountered error while generating package metadata.",
            "error: metadata-generation-failed",
            "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/flash-attn/",
            "  × No solution found when resolving dependencies:",
            "LibMambaUnsatisfiableError: Encountered problems while solving:",
            "pip install flash-attn --no-build-isolation error",
            "$ sudo pip3 install torch==2.1.0",
            "python -m pip install vllm",
            "conda install pytorch-cuda=12.1 -c nvidia",
            "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain (_ssl.c:1007)",
            "curl: (60) SSL certificate problem: unable to get local issuer certificate",
            "[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29400 (errno: 98 - Address already in use).",
            "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use",
            "IndexError: list index out of range",
            "2026-01-26T14:45:06.216021 - !!! Exception during processing !!! list index out of range",
            "AttributeError: 'NoneType' object has no attribute 'shape'",
            "TypeError: __init__() got an unexpected keyword argument 'use_flash_attention_2'",
            "Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct/resolve/main/config.json.",
            "OSError: You are trying to access a gated repo.",
            "    raise OSError(",
            "        raise RuntimeError",
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
            "AssertionError: ",
            "  Warning  FailedScheduling   <unknown>   default-scheduler   0/41 nodes are available: 2 Insufficient pods, 35 Insufficient cpu, 4 Insufficient memory.",
            "  Recv failure: Connection reset by peer",
            "W: GPG error: https://nvidia.github.io/libnvidia-container/stable/ubuntu18.04/amd64  InRelease: The following signatures couldn't be verified because the public key is not available: NO_PUBKEY DDCAE044F796ECB0",
            "Err:1 http://archive.ubuntu.com/ubuntu jammy InRelease Temporary failure resolving 'archive.ubuntu.com'",
            "toomanyrequests: You have reached your pull rate limit. You may increase the limit by authenticating and upgrading",
            "    raise KeyError(key) from None KeyError: 'MASTER_ADDR'",
            "error: invalid value 'True' for '--disable-custom-kernels'",
            "main.py: error: argument --dtype: invalid choice: 'bf16' (choose from 'auto', 'half', 'float16')",
            "train.py: error: unrecognized arguments: --local-rank=0",
            "error: unexpected argument '--gpus' found",
            "Error: No such option: --num-gpus",
            "ERROR: flash_attn-2.7.2.post1+cu12torch2.5cxx11abiFALSE-cp310-cp310-linux_x86_64.whl is not a supported wheel on this platform.",
        ] {
            assert!(is_foreign(line), "{line}");
        }
    }

    #[test]
    fn gpu_failures_are_not_foreign() {
        for line in [
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
            "NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01",
            "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)",
            "RuntimeError: Error building extension 'fused_adam'",
            "requests.exceptions.SSLError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /api (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate is not yet valid (_ssl.c:1129)')))",
            "the pip install step finished; then torch.cuda.is_available() is False",
            "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: certificate is not yet valid (_ssl.c:1007)",
            "x509: certificate has expired or is not yet valid: current time 2019-01-01T00:02:11Z is before 2024-03-04T00:00:00Z",
            "[W socket.cpp:663] [c10d] The client socket has failed to connect to [node-0]:29500 (errno: 113 - No route to host).",
            "RuntimeError: CUDA error: device-side assert triggered",
            "OSError: libcudart.so.12: cannot open shared object file: No such file or directory",
            "Warning  FailedScheduling  2m  default-scheduler  0/8 nodes are available: 8 Insufficient nvidia.com/gpu.",
            "gpu-node-3:1187:1301 [2] NCCL WARN NET/Socket : peer 10.0.0.2<43511> message truncated : Connection reset by peer",
            "torch.distributed.DistBackendError: raise the timeout or check the network",
            "    raise AssertionError(\"Torch not compiled with CUDA enabled\")",
        ] {
            assert!(!is_foreign(line), "{line}");
        }
    }
}
