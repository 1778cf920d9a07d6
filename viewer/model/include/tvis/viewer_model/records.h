// records.h: the recorded types the model hands out (schema::Event,
// schema::TensorRecord, schema::Sample, ...), generated from
// schema/recording.fbs. Within viewer/, this is the only include of the
// generated header: pages get the types through the model.
#pragma once

#include "tvis/schema/recording_generated.h"
