/*
 * proto: a protobuf encoder, by hand, for profile.proto: a message is
 * varints and length-delimited fields, and a submessage is built in a
 * scratch buffer and copied after its length.  That is a few dozen
 * lines, against libprotobuf-c and the code protoc-c generates.
 */
#ifndef MT_PPROF_PROTO_H
#define MT_PPROF_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* profile.proto's field numbers, and the wire types used. */
enum { PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14 };
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM };
enum { MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS, MAPPING_HAS_FILENAMES,
	MAPPING_HAS_LINE_NUMBERS, MAPPING_HAS_INLINE_FRAMES };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME };
#define WIRE_VARINT 0
#define WIRE_LEN 2

struct pbuf {
	uint8_t *b;
	size_t n, cap;
};

void pb_put(struct pbuf *p, const void *s, size_t n);
void pb_varint(struct pbuf *p, uint64_t v);
/* A varint field; zero, the default, is not written. */
void pb_uint(struct pbuf *p, unsigned field, uint64_t v);
void pb_bytes(struct pbuf *p, unsigned field, const void *s, size_t n);
/* A submessage built in sub, written into p and sub emptied for the next. */
void pb_message(struct pbuf *p, unsigned field, struct pbuf *sub);

#endif
