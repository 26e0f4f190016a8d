"""_errors.py: the exceptions and warning class of the evoforge package,
made from the C API's status codes and messages."""

OK, ERR_ARGUMENT, ERR_INPUT, ERR_SYSTEM, ERR_NOGPU, ERR_CUDA, ERR_NVRTC, \
    ERR_UNSUPPORTED, ERR_INTERNAL, ERR_STATE = range(10)


class EvoforgeError(Exception):
    """A failed evoforge call: .status (int), .status_name ("EVOFORGE_ERR_INPUT")
    and .message (the text the CLI prints after "evoforge: error: ")."""

    def __init__(self, status, status_name, message):
        super().__init__(f"{message} ({status_name})" if message else status_name)
        self.status = status
        self.status_name = status_name
        self.message = message


class EvoforgeInputError(EvoforgeError, ValueError):
    """EVOFORGE_ERR_INPUT or EVOFORGE_ERR_ARGUMENT: a bad spec, value or
    argument (also a ValueError)."""


class EvoforgeWarning(UserWarning):
    """A warning line of the engine (the CLI's "evoforge: warning: ...")."""


def make_error(status, status_name, message):
    cls = EvoforgeInputError if status in (ERR_INPUT, ERR_ARGUMENT) else EvoforgeError
    return cls(status, status_name, message)
