from whisperish.model import ModelDimensions, NotWhisper, Whisper


def make_model():
    return Whisper(ModelDimensions(n_mels=8, n_audio_state=16, n_vocab=32, n_text_state=16))


def make_subclass():
    return NotWhisper(ModelDimensions(n_mels=8, n_audio_state=16, n_vocab=32, n_text_state=16))


def make_with(width):
    return Whisper(ModelDimensions(n_mels=8, n_audio_state=width, n_vocab=32, n_text_state=width))


def make_namesake():
    from namesake import Whisper as SameName  # not whisperish.model's
    return SameName()
